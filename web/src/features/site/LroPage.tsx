import { Link } from 'react-router-dom';
import { PageSpinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { ProductArt } from './ProductArt';
import { contactLink, LRO } from './products';
import { useSimulatedLoad } from './useSimulatedLoad';
import './site.css';

/** /products/commercial/lro: Lessors Risk Only; both buttons go to /contact with the product (SPEC §2). */
export default function LroPage() {
  usePageTitle(LRO.title);
  const loading = useSimulatedLoad(300);
  if (loading) return <PageSpinner label="Loading product..." />;
  const contact = contactLink('commercial', 'lro');
  return (
    <div className="page site-page">
      <section className="split">
        <div>
          <span className="tag">{LRO.tag}</span>
          <h1>{LRO.title}</h1>
          <p className="lead">{LRO.description}</p>
          <p>
            A lessor&apos;s exposure depends on its tenants. One lookup lists the registered businesses at the address
            with their industry codes, flags closed ones, and scores the location against 18 natural hazards.
          </p>
          <div className="button-row">
            <Link to={contact} className="btn btn-accent">Contact Us</Link>
            <Link to={contact} className="btn btn-outline">Back to Products</Link>
          </div>
        </div>
        <ProductArt kind="lro" label={LRO.title} />
      </section>
    </div>
  );
}
