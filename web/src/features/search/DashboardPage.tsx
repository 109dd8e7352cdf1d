import { useEffect } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { Banner } from '../../components/Banner';
import { usePageTitle } from '../../components/usePageTitle';
import { selectRole, selectUser } from '../../lib/auth/authSlice';
import { useGetRecentSearchesQuery } from '../../api/api';
import { ExportHistory } from './ExportHistory';
import { LookupPanel } from './LookupPanel';
import { RecentSearches } from './RecentSearches';
import { splitRecent } from '../../lib/resultView';
import { SearchStatsPanel } from './SearchStatsPanel';

/** /data-processing: search statistics, the single lookup, and recent searches. */
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
  // Data reloads on every route change (SPEC §2): refetch when the page mounts.
  const { data: searches = [], isLoading: recentLoading, error: recentError } = useGetRecentSearchesQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });
  const { latest, others } = splitRecent(searches);

  return (
    <div className="page">
      <header className="page-header">
        <h1>Dashboard</h1>
        <p className="muted">Welcome back{name ? `, ${name}` : ''}. Look up a property or process a batch of addresses.</p>
      </header>
      {justSignedIn && <Banner kind="success">You are signed in.</Banner>}
      <div className="dashboard-grid">
        <SearchStatsPanel role={role} />
        <LookupPanel />
      </div>
      <div className="dashboard-lists">
        <RecentSearches latest={latest} others={others} loading={recentLoading} error={recentError} />
        <ExportHistory />
      </div>
    </div>
  );
}
