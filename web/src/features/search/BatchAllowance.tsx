import type { SearchStats } from '../../api/types';
import { usageColour } from './quota';

const MB = 1024 * 1024;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < MB) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / MB).toFixed(1)} MB`;
}

function percentOf(used: number, limit: number): number {
  return limit > 0 ? Math.min(100, Math.round((used / limit) * 100)) : 0;
}

/** The search bar's colours on its scale of ten: red at a fifth or less left, yellow at half. */
function colourForShareLeft(left: number, total: number) {
  return usageColour(Math.round((left / Math.max(total, 1)) * 10));
}

/**
 * The monthly batch row allowance (regular users) and storage use, under the search statistics.
 * The bars' colours follow the share left, as the search bar's do with searches left.
 */
export function BatchAllowance({ stats, unlimited }: { stats: SearchStats; unlimited: boolean }) {
  if (typeof stats.batch_rows_used !== 'number') return null; // an older server sends no allowance
  const limit = stats.batch_rows_limit;
  const remaining = stats.batch_rows_remaining ?? (limit === null ? null : Math.max(0, limit - stats.batch_rows_used));
  const storagePercent = percentOf(stats.storage_bytes_used, stats.storage_bytes_limit);
  return (
    <div className="batch-allowance">
      <h3 className="subtitle">Batch rows this month</h3>
      {unlimited || limit === null ? (
        <p className="small">
          <span data-testid="batch-rows-used">{stats.batch_rows_used.toLocaleString()}</span> rows processed{' '}
          <span className="badge badge-teal">No Batch Row Limit</span>
        </p>
      ) : (
        <>
          <p className="small" data-testid="batch-rows-used">
            {stats.batch_rows_used.toLocaleString()} / {limit.toLocaleString()} rows used
          </p>
          <div
            className={`progress progress-${colourForShareLeft(remaining ?? 0, limit)}`}
            role="progressbar"
            aria-label="Batch rows used this month"
            aria-valuemin={0}
            aria-valuemax={limit}
            aria-valuenow={stats.batch_rows_used}
            aria-valuetext={`${stats.batch_rows_used.toLocaleString()} of ${limit.toLocaleString()} batch rows used`}
          >
            <div className="progress-fill" style={{ width: `${percentOf(stats.batch_rows_used, limit)}%` }} />
          </div>
          <p className="muted small">
            {(remaining ?? 0).toLocaleString()} batch rows remaining this month. A batch file needs as many rows as it
            has addresses; contact an administrator for a larger allowance.
          </p>
        </>
      )}
      <h3 className="subtitle">Storage</h3>
      <p className="small" data-testid="storage-used">
        {formatBytes(stats.storage_bytes_used)} of {formatBytes(stats.storage_bytes_limit)} used by uploads, exports and batch jobs
      </p>
      <div
        className={`progress progress-${colourForShareLeft(100 - storagePercent, 100)}`}
        role="progressbar"
        aria-label="Storage used"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={storagePercent}
        aria-valuetext={`${formatBytes(stats.storage_bytes_used)} of ${formatBytes(stats.storage_bytes_limit)} used`}
      >
        <div className="progress-fill" style={{ width: `${storagePercent}%` }} />
      </div>
      {storagePercent >= 90 && (
        <p className="stats-warning" role="note">
          Storage is nearly full: delete old exports from the Batch Export History to upload more files.
        </p>
      )}
    </div>
  );
}
