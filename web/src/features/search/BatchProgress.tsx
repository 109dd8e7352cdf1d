import type { BatchJob } from '../../api/types';

const STAGE_LABELS: Record<BatchJob['stage'], string> = {
  search: 'Searching addresses',
  matching: 'Matching occupants',
  export: 'Writing the export',
};

/** The running job's stage, percent and time left (the server's ETA). */
export function BatchProgress({ job }: { job: BatchJob }) {
  const percent = job.total ? Math.round((job.done / job.total) * 100) : 0;
  const label = job.status === 'queued' ? 'Queued' : STAGE_LABELS[job.stage];
  return (
    <div className="batch-progress" aria-live="polite">
      <div className="form-row-between">
        <span>{label}</span>
        <span>
          {percent}% ({job.done.toLocaleString()} of {job.total.toLocaleString()})
          {job.eta_seconds !== null && ` · about ${job.eta_seconds} s left`}
        </span>
      </div>
      <div className="progress" role="progressbar" aria-label="Batch progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div className="progress-fill progress-green" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
