import { useState } from 'react';
import { useRerunFailedRowsMutation } from '../../api/api';
import type { BatchJob } from '../../api/types';
import { batchErrorMessage, errorCodeOf } from './errorMessages';
import { failedRowsOf, rowCountText } from './jobFigures';

interface Props {
  /** A finished job that reported failed rows. */
  job: BatchJob;
  /** The new job that runs the failed rows again: the caller follows it like any other. */
  onStarted: (job: BatchJob) => void;
  /** The monthly limit refused the re-run: the caller refreshes the statistics. */
  onLimitReached: () => void;
}

/** How many rows of a finished job failed, why, and a button to run just those rows again. */
export function FailedRowsNotice({ job, onStarted, onLimitReached }: Props) {
  const [rerun, { isLoading }] = useRerunFailedRowsMutation();
  const [error, setError] = useState<{ text: string; final: boolean } | null>(null);
  const failed = failedRowsOf(job) ?? 0;
  // A job that finished keeps no reason of its own: each failed row carries it in the export.
  const reason = job.error
    ? `Reason: ${job.error}`
    : job.export_filename
      ? `${failed === 1 ? 'It is' : 'Each one is'} in ${job.export_filename} with the reason it failed.`
      : null;

  async function runAgain() {
    setError(null);
    try {
      onStarted(await rerun(job.id).unwrap());
    } catch (failure) {
      const message = batchErrorMessage(failure);
      if (message.limitReached) onLimitReached();
      // Nothing left to run again: the button would only fail the same way.
      setError({ text: message.text, final: errorCodeOf(failure) === 'no_failed_rows' });
    }
  }

  return (
    <section className="failed-rows-notice" aria-labelledby={`failed-rows-${job.id}`}>
      <p id={`failed-rows-${job.id}`} className="failed-rows-title">
        <span aria-hidden="true">⚠ </span>
        {rowCountText(failed)} of this batch could not be processed.
      </p>
      {reason && <p className="small">{reason}</p>}
      {error && (
        <p className="failed-rows-error small" role="alert">
          {error.text}
        </p>
      )}
      {!error?.final && (
        <button type="button" className="btn btn-outline btn-small" disabled={isLoading} onClick={() => void runAgain()}>
          {isLoading ? 'Starting the re-run...' : 'Re-run failed rows'}
        </button>
      )}
    </section>
  );
}
