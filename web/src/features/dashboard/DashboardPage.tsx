import { useEffect } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { Banner } from '../../components/Banner';
import { usePageTitle } from '../../components/usePageTitle';
import { selectRole, selectUser } from '../auth/authSlice';
import { SearchStatsPanel } from './SearchStatsPanel';

/** /data-processing: the signed-in dashboard. Search and batch tools arrive with the next issue. */
export default function DashboardPage() {
  usePageTitle('Dashboard');
  const user = useAppSelector(selectUser);
  const role = useAppSelector(selectRole);
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const location = useLocation();
  const justSignedIn = params.get('signed_in') === '1';

  // After a third-party sign-in the server lands here with ?signed_in=1; drop it
  // from the address bar once shown so a reload does not repeat the banner.
  useEffect(() => {
    if (!justSignedIn) return undefined;
    const timer = setTimeout(() => navigate(location.pathname, { replace: true }), 4000);
    return () => clearTimeout(timer);
  }, [justSignedIn, navigate, location.pathname]);

  const name = user?.displayName || user?.email || '';

  return (
    <div className="page">
      <header className="page-header">
        <h1>Dashboard</h1>
        <p className="muted">Welcome back{name ? `, ${name}` : ''}. Look up a property or process a batch of addresses.</p>
      </header>
      {justSignedIn && <Banner kind="success">You are signed in.</Banner>}
      <div className="dashboard-grid">
        <SearchStatsPanel role={role} />
        <section className="card" aria-labelledby="lookup-title">
          <h2 id="lookup-title" className="card-title">
            Single Property Lookup
          </h2>
          <p className="muted">
            Address search, CSV batch processing, recent searches and export history arrive in the next release.
          </p>
        </section>
      </div>
    </div>
  );
}
