import { Link } from 'react-router-dom';
import { useAppSelector } from '../app/hooks';
import { usePageTitle } from '../components/usePageTitle';
import { selectUser } from '../lib/auth/authSlice';

const FEATURES = [
  {
    title: 'Occupants and NAICS',
    text: 'Who operates at the address, whether they are open, and their industry classification code.',
  },
  {
    title: '18 geo perils',
    text: 'Scores from 0 to 100 for every FEMA National Risk Index hazard, a composite total and the top three risks.',
  },
  {
    title: 'Batch processing',
    text: 'Upload a CSV of thousands of addresses and download the enriched results from your export history.',
  },
  {
    title: 'Building details',
    text: 'Year built, floors, floor area and parking where public building records cover the address.',
  },
];

/** / : marketing page with a call to action to sign up (SPEC §2). */
export default function HomePage() {
  usePageTitle('');
  const user = useAppSelector(selectUser);
  return (
    <div className="home">
      <section className="hero">
        <div className="hero-inner">
          <p className="eyebrow">Property risk intelligence for insurance</p>
          <h1>Know the property before you write the policy.</h1>
          <p className="lead">
            PerilScope tells carriers, MGAs, brokers and underwriters who occupies a building, what the building is,
            and how exposed it is to 18 natural hazards, for one address or thousands.
          </p>
          <div className="button-row">
            {user ? (
              <Link to="/data-processing" className="btn btn-accent btn-lg">
                Go to your dashboard
              </Link>
            ) : (
              <Link to="/signup" className="btn btn-accent btn-lg">
                Get started free
              </Link>
            )}
            <Link to="/products" className="btn btn-outline-light btn-lg">
              Explore products
            </Link>
          </div>
        </div>
      </section>
      <section className="page features" aria-labelledby="features-title">
        <h2 id="features-title">What you get for every address</h2>
        <div className="feature-grid">
          {FEATURES.map((feature) => (
            <article key={feature.title} className="card feature-card">
              <h3>{feature.title}</h3>
              <p className="muted">{feature.text}</p>
            </article>
          ))}
        </div>
      </section>
    </div>
  );
}
