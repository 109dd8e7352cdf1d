import type { BatchJob } from '../../api/types';

/** '1,235 rows/s' (whole rows; one decimal under 10 so a slow start does not read as 0). */
export function rowsPerSecondText(rate: number): string {
  const rounded = rate >= 10 ? Math.round(rate) : Math.round(rate * 10) / 10;
  return `${rounded.toLocaleString()} rows/s`;
}

/** '1 worker' / '2 workers'. */
export function workerCountText(count: number): string {
  return `${count.toLocaleString()} worker${count === 1 ? '' : 's'}`;
}

/** 'N row(s)', as the dashboard counts addresses elsewhere. */
export function rowCountText(count: number): string {
  return `${count.toLocaleString()} row${count === 1 ? '' : 's'}`;
}

/** The failed rows a job reports; null when unknown (not split yet, or an older server). */
export function failedRowsOf(job: BatchJob): number | null {
  return typeof job.failed_rows === 'number' ? job.failed_rows : null;
}

/** Chunks done of total, or null while the job is not split into chunks. */
export function chunksText(job: BatchJob): string | null {
  if (typeof job.chunks_total !== 'number' || typeof job.chunks_done !== 'number') return null;
  return `${job.chunks_done.toLocaleString()} of ${job.chunks_total.toLocaleString()} chunks done`;
}
