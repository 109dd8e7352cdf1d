import { useEffect, useState } from 'react';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { PageSpinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { useSystemStatsQuery } from './adminApi';
import { statisticsView } from './statistics';
import { useLeaveOnRefusal } from './useAdminGate';
import './admin.css';

function ShareBar({ label, value, share, tone }: { label: string; value: number; share: number; tone: 'navy' | 'green' }) {
  return (
    <div className="share-bar">
      <div className="form-row-between small"><span>{label}</span><span>{value} ({share}%)</span></div>
      <div className={`progress progress-${tone}`} role="img" aria-label={`${label}: ${share}%`}>
        <div className="progress-fill" style={{ width: `${share}%` }} />
      </div>
    </div>
  );
}

/** /admin/statistics: users and searches across the system (SPEC §2, §9). */
export default function StatisticsPage() {
  usePageTitle('System Statistics');
  const { data, error, isLoading, isFetching, refetch, fulfilledTimeStamp } = useSystemStatsQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });
  useLeaveOnRefusal(error);
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  useEffect(() => {
    if (fulfilledTimeStamp) setUpdatedAt(new Date(fulfilledTimeStamp));
  }, [fulfilledTimeStamp]);

  const failure = error
    ? errorMessage(error, 'Error retrieving statistics')
    : data && data.status !== 'success'
      ? 'Failed to fetch statistics'
      : null;
  const stats = data?.status === 'success' ? data.stats : null;
  const view = stats ? statisticsView(stats) : null;

  return (
    <div className="page admin-page">
      <header className="page-header result-header">
        <div>
          <h1>System Statistics</h1>
          <p className="muted">{updatedAt ? `Last updated: ${updatedAt.toLocaleString()}` : 'Not loaded yet'}</p>
        </div>
        <button type="button" className="btn btn-outline" onClick={() => void refetch()} disabled={isFetching}>
          {isFetching && !isLoading ? 'Refreshing...' : 'Refresh Data'}
        </button>
      </header>
      {failure && <Banner kind="error">{failure}</Banner>}
      {isLoading && <PageSpinner label="Loading statistics..." />}
      {stats && view && (
        <>
          {stats.near_limit_users > 0 && (
            <Banner kind="warning">
              {stats.near_limit_users} user{stats.near_limit_users === 1 ? ' is' : 's are'} near their monthly search limit.
            </Banner>
          )}
          <div className="stat-grid">
            <article className="card stat-card" aria-label="Total Users">
              <h2 className="stat-title">Total Users</h2>
              <p className="stat-value">{stats.total_users}</p>
              <ShareBar label="Admins" value={stats.admin_users} share={view.adminShare} tone="navy" />
              <ShareBar label="Regular users" value={stats.regular_users} share={view.regularShare} tone="green" />
            </article>
            <article className="card stat-card" aria-label="Total Searches">
              <h2 className="stat-title">Total Searches</h2>
              <p className="stat-value">{stats.total_searches}</p>
              <p className="muted">{view.searchesPerUser} per user on average</p>
            </article>
            <article className="card stat-card" aria-label="This Month's Searches">
              <h2 className="stat-title">This Month&apos;s Searches</h2>
              <p className="stat-value">{stats.month_searches}</p>
              <p className="muted">{view.monthShareOfTotal}% of all searches</p>
            </article>
            <article className="card stat-card" aria-label="Today's Searches">
              <h2 className="stat-title">Today&apos;s Searches</h2>
              <p className="stat-value">{stats.day_searches}</p>
              <p className="muted">{view.todayShareOfMonth}% of this month</p>
            </article>
            {stats.api_requests_today !== undefined && (
              <article className="card stat-card" aria-label="Public API Today">
                <h2 className="stat-title">Public API Today</h2>
                <p className="stat-value">{stats.api_requests_today}</p>
                <p className="muted">
                  requests by {stats.api_callers_today ?? 0} {stats.api_callers_today === 1 ? 'user' : 'users'} (UTC day)
                </p>
              </article>
            )}
          </div>
          <section className="card" aria-labelledby="details-title">
            <h2 id="details-title" className="card-title">Detailed statistics</h2>
            <dl className="kv-grid">
              <div><dt>Average searches per user</dt><dd>{view.searchesPerUser}</dd></div>
              <div><dt>Users near their limit</dt><dd>{stats.near_limit_users} ({view.nearLimitShare}% of regular users)</dd></div>
              <div><dt>Daily average this month</dt><dd>{view.dailyAverage}</dd></div>
              <div><dt>Administrators</dt><dd>{view.adminShare}%</dd></div>
              <div><dt>Regular users</dt><dd>{view.regularShare}%</dd></div>
            </dl>
            <p className="muted small">
              The daily average divides this month&apos;s searches by 30. Searches are not split by role on the server,
              so no per-role average is shown.
            </p>
          </section>
        </>
      )}
    </div>
  );
}
