import type { BatchJob } from '../../api/types';
import { chunksText, failedRowsOf, rowCountText, rowsPerSecondText, workerCountText } from './jobFigures';

const STAGE_LABELS: Record<BatchJob['stage'], string> = {
  search: 'Searching addresses',
  matching: 'Matching occupants',
  export: 'Writing the export',
};

/**
 * The running job's stage, percent and time left (the server's ETA), then how it runs: chunks,
 * speed, failed rows and how many workers are on it. A figure the server does not know yet is left out.
 */
export function BatchProgress({ job }: { job: BatchJob }) {
  const percent = job.total ? Math.round((job.done / job.total) * 100) : 0;
  const label = job.status === 'queued' ? 'Queued' : STAGE_LABELS[job.stage];
  const chunks = chunksText(job);
  const failedRows = failedRowsOf(job);
  const workers = job.worker_count ?? 0;
  return (
    <div className="batch-progress">
      <div className="form-row-between" aria-live="polite">
        <span>{label}</span>
        <span>
          {percent}% ({job.done.toLocaleString()} of {job.total.toLocaleString()})
          {job.eta_seconds !== null && ` · about ${job.eta_seconds} s left`}
        </span>
      </div>
      <div className="progress" role="progressbar" aria-label="Batch progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div className="progress-fill progress-green" style={{ width: `${percent}%` }} />
      </div>
      {(chunks || typeof job.rows_per_second === 'number') && (
        <p className="batch-figures muted small">
          {[chunks, typeof job.rows_per_second === 'number' ? rowsPerSecondText(job.rows_per_second) : null]
            .filter(Boolean)
            .join(' · ')}
        </p>
      )}
      {failedRows !== null && failedRows > 0 && (
        // A status region of its own: failures are news, the ticking figures above are not.
        <p className="batch-failed-rows small" role="status">
          {rowCountText(failedRows)} failed so far (they are kept and can be run again when the job ends)
        </p>
      )}
      {workers > 0 && <p className="batch-workers muted small">{workerCountText(workers)}</p>}
    </div>
  );
}
