import { useGetSearchStatsQuery } from '../../api/api';
import { errorMessage } from '../../api/errors';
import type { Role } from '../../api/types';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';
import { BatchAllowance } from './BatchAllowance';
import { remainingOf, usageColour, usagePercent, WARNING_THRESHOLD } from './quota';

export const ROLE_LABELS: Record<Role, string> = {
  user: 'Regular User Account',
  admin: 'Administrator Account',
};

function formatDate(iso: string | null): string {
  if (!iso) return 'Never';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'Unknown';
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Search statistics panel (SPEC §2): used this month, limit, bar, role label. */
export function SearchStatsPanel({ role }: { role: Role }) {
  const { data: stats, isLoading, isFetching, error, refetch } = useGetSearchStatsQuery(undefined, {
    refetchOnMountOrArgChange: true,
  });

  return (
    <section className="card stats-card" aria-labelledby="stats-title" aria-busy={isFetching}>
      <div className="card-head">
        <h2 id="stats-title" className="card-title">
          Search statistics
        </h2>
        <span className={`role-badge role-${role}`}>{ROLE_LABELS[role]}</span>
      </div>
      {isLoading ? (
        <Spinner size="sm" label="Loading statistics..." />
      ) : error || !stats ? (
        <>
          <Banner kind="error">{errorMessage(error, 'Could not load search statistics.')}</Banner>
          <button type="button" className="btn btn-outline btn-sm" onClick={() => void refetch()}>
            Try again
          </button>
        </>
      ) : (
        <StatsBody stats={stats} role={role} />
      )}
    </section>
  );
}

function StatsBody({ stats, role }: { stats: NonNullable<ReturnType<typeof useGetSearchStatsQuery>['data']>; role: Role }) {
  const unlimited = role === 'admin' || stats.search_limit === null;
  const remaining = remainingOf(stats);
  const percent = usagePercent(stats);
  const colour = remaining === null ? 'green' : usageColour(remaining);

  return (
    <div className="stats-body">
      <div className="stats-figures">
        <div className="stat">
          <span className="stat-value" data-testid="searches-used">
            {unlimited ? stats.current_month_searches : `${stats.current_month_searches} / ${stats.search_limit}`}
          </span>
          <span className="stat-label">{unlimited ? 'searches this month' : 'used this month'}</span>
        </div>
        <div className="stat">
          <span className="stat-value">{stats.total_searches}</span>
          <span className="stat-label">total searches</span>
        </div>
        <div className="stat">
          <span className="stat-value stat-value-sm">{formatDate(stats.last_search_date)}</span>
          <span className="stat-label">last search</span>
        </div>
      </div>

      {unlimited ? (
        <span className="badge badge-teal">No Search Limit</span>
      ) : (
        <>
          <div
            className={`progress progress-${colour}`}
            role="progressbar"
            aria-label="Searches used this month"
            aria-valuemin={0}
            aria-valuemax={stats.search_limit ?? 0}
            aria-valuenow={stats.current_month_searches}
            aria-valuetext={`${stats.current_month_searches} of ${stats.search_limit} searches used`}
          >
            <div className="progress-fill" style={{ width: `${percent}%` }} />
          </div>
          <p className="muted small">
            {remaining} {remaining === 1 ? 'search' : 'searches'} remaining this month
          </p>
          {remaining !== null && remaining <= WARNING_THRESHOLD && (
            <p className="stats-warning" role="note">
              Note: You have {remaining} searches remaining this month
            </p>
          )}
        </>
      )}
      <BatchAllowance stats={stats} unlimited={role === 'admin'} />
    </div>
  );
}
