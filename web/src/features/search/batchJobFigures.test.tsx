import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { BatchJob } from '../../api/types';
import { ANN } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { rowsPerSecondText } from './jobFigures';

const EXPORT = 'portfolio_export_20261125_101500_000001.csv';
const RERUN_EXPORT = 'failed_rows_of_job-1_export_20261125_102000_000001.csv';
const SLOW = { timeout: 4000 }; // the dashboard polls the jobs once a second

function job(values: Partial<BatchJob>): BatchJob {
  return {
    id: 'job-1', status: 'running', stage: 'search', done: 0, total: 200, eta_seconds: null, export_filename: null, error: null,
    chunks_total: null, chunks_done: null, chunks_failed: null, failed_rows: null, rows_per_second: null, worker_count: null,
    ...values,
  };
}

/** A server that knows `state.jobs` (listed while queued or running); the re-run answers with `state.rerun`. */
function useJobsServer(state: { jobs: BatchJob[]; rerun: () => Response; rerunCalls: string[] }) {
  server.use(
    http.get('/api/batch-jobs', () =>
      HttpResponse.json({ status: 'success', jobs: state.jobs.filter((j) => ['queued', 'running'].includes(j.status)) }),
    ),
    http.get('/api/batch-jobs/:id', ({ params }) => {
      const found = state.jobs.find((j) => j.id === params.id);
      return found
        ? HttpResponse.json({ status: 'success', job: found })
        : HttpResponse.json({ status: 'error', error: 'No such batch job' }, { status: 404 });
    }),
    http.post('/api/batch-jobs/:id/rerun-failed', ({ params }) => {
      state.rerunCalls.push(String(params.id));
      return state.rerun();
    }),
  );
}

function openDashboard() {
  return renderApp({ route: '/data-processing', preloadedState: signedInState(ANN) });
}

function setJob(state: { jobs: BatchJob[] }, updated: BatchJob) {
  state.jobs = [...state.jobs.filter((j) => j.id !== updated.id), updated];
}

describe('a running job shows how it runs', () => {
  it('shows chunks, rows per second, ETA, failed rows and the workers', async () => {
    const state = { jobs: [job({
      done: 80, eta_seconds: 12, chunks_total: 40, chunks_done: 16, chunks_failed: 1, failed_rows: 3,
      rows_per_second: 1234.56, worker_count: 2,
    })], rerun: () => HttpResponse.json({}), rerunCalls: [] as string[] };
    useJobsServer(state);
    openDashboard();
    expect(await screen.findByRole('progressbar', { name: 'Batch progress' })).toHaveAttribute('aria-valuenow', '40');
    expect(screen.getByText(/40% \(80 of 200\) · about 12 s left/)).toBeInTheDocument();
    expect(screen.getByText('16 of 40 chunks done · 1,235 rows/s')).toBeInTheDocument();
    const failed = screen.getByText(/3 rows failed so far/);
    expect(failed).toHaveAttribute('role', 'status');
    expect(failed).toHaveClass('batch-failed-rows');
    expect(screen.getByText('2 workers')).toBeInTheDocument();
  });

  it('leaves out what the server does not know yet, never showing 0 for it', async () => {
    const state = { jobs: [job({ status: 'queued' })], rerun: () => HttpResponse.json({}), rerunCalls: [] as string[] };
    useJobsServer(state);
    openDashboard();
    await screen.findByRole('progressbar', { name: 'Batch progress' });
    expect(screen.getByText('Queued')).toBeInTheDocument();
    expect(screen.queryByText(/chunks done/)).not.toBeInTheDocument();
    expect(screen.queryByText(/rows\/s/)).not.toBeInTheDocument();
    expect(screen.queryByText(/failed so far/)).not.toBeInTheDocument();
    expect(screen.queryByText(/worker/)).not.toBeInTheDocument();
    expect(screen.queryByText(/s left/)).not.toBeInTheDocument();
  });

  it('does not warn about failed rows while none failed', async () => {
    const state = { jobs: [job({ chunks_total: 4, chunks_done: 1, failed_rows: 0, worker_count: 1 })], rerun: () => HttpResponse.json({}), rerunCalls: [] as string[] };
    useJobsServer(state);
    openDashboard();
    expect(await screen.findByText('1 of 4 chunks done')).toBeInTheDocument();
    expect(screen.queryByText(/failed so far/)).not.toBeInTheDocument();
    expect(screen.getByText('1 worker')).toBeInTheDocument();
  });

  it('counts the workers and names no host or process', async () => {
    const state = { jobs: [job({ chunks_total: 10, chunks_done: 2, worker_count: 5 })], rerun: () => HttpResponse.json({}), rerunCalls: [] as string[] };
    useJobsServer(state);
    openDashboard();
    const workers = await screen.findByText('5 workers');
    expect(workers).toHaveClass('batch-workers');
    expect(workers.closest('.batch-progress')!.textContent).not.toMatch(/:\d+/); // no host:pid
  });
});

describe('a finished job with failed rows', () => {
  it('tells how many failed, runs them again and follows the new job to its end', async () => {
    const state = {
      jobs: [job({ done: 150, chunks_total: 4, chunks_done: 3, failed_rows: 0, rows_per_second: 50 })],
      rerun: () => {
        const started = job({ id: 'job-2', status: 'queued', total: 3 });
        setJob(state, started);
        return HttpResponse.json({ status: 'success', job: started }, { status: 202 });
      },
      rerunCalls: [] as string[],
    };
    useJobsServer(state);
    const { user } = openDashboard();
    await screen.findByRole('progressbar', { name: 'Batch progress' });

    setJob(state, job({ status: 'done', stage: 'export', done: 200, export_filename: EXPORT, chunks_total: 4, chunks_done: 4, chunks_failed: 1, failed_rows: 3 }));
    expect(await screen.findByText(`Batch complete: 200 address(es) exported to ${EXPORT}`, {}, SLOW)).toBeInTheDocument();
    expect(screen.getByText('3 rows of this batch could not be processed.')).toBeInTheDocument();
    expect(screen.getByText(`Each one is in ${EXPORT} with the reason it failed.`)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Re-run failed rows' }));
    expect(state.rerunCalls).toEqual(['job-1']);
    expect(await screen.findByText('Running the 3 rows that failed again.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Re-run failed rows' })).not.toBeInTheDocument();
    expect(await screen.findByRole('progressbar', { name: 'Batch progress' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Processing...' })).toBeDisabled();

    setJob(state, job({ id: 'job-2', status: 'done', stage: 'export', done: 3, total: 3, export_filename: RERUN_EXPORT, chunks_total: 1, chunks_done: 1, failed_rows: 0 }));
    expect(await screen.findByText(`Batch complete: 3 address(es) exported to ${RERUN_EXPORT}`, {}, SLOW)).toBeInTheDocument();
    expect(screen.queryByText(/could not be processed/)).not.toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('progressbar', { name: 'Batch progress' })).not.toBeInTheDocument());
  }, 15_000);

  it('shows the reason a job kept, and says clearly when there is nothing to run again', async () => {
    const state = {
      jobs: [job({ done: 10, chunks_total: 2, chunks_done: 1 })],
      rerun: () => HttpResponse.json(
        { status: 'error', error: 'This job has no failed rows to run again.', code: 'no_failed_rows' }, { status: 400 },
      ),
      rerunCalls: [] as string[],
    };
    useJobsServer(state);
    const { user } = openDashboard();
    await screen.findByRole('progressbar', { name: 'Batch progress' });
    setJob(state, job({ status: 'failed', error: 'Batch processing failed: OSError', failed_rows: 100, chunks_total: 2, chunks_done: 1, chunks_failed: 1 }));
    expect(await screen.findByText('100 rows of this batch could not be processed.', {}, SLOW)).toBeInTheDocument();
    expect(screen.getByText('Reason: Batch processing failed: OSError')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Re-run failed rows' }));
    expect(await screen.findByText('Batch processing error: This job has no failed rows to run again.')).toHaveAttribute('role', 'alert');
    expect(screen.queryByRole('button', { name: 'Re-run failed rows' })).not.toBeInTheDocument();
  });

  it('keeps the button after a passing failure, with the SPEC message', async () => {
    const state = {
      jobs: [job({ done: 10 })],
      rerun: () => HttpResponse.json({ status: 'error', error: 'down' }, { status: 503 }),
      rerunCalls: [] as string[],
    };
    useJobsServer(state);
    const { user } = openDashboard();
    await screen.findByRole('progressbar', { name: 'Batch progress' });
    setJob(state, job({ status: 'done', stage: 'export', done: 200, export_filename: EXPORT, failed_rows: 7 }));
    await user.click(await screen.findByRole('button', { name: 'Re-run failed rows' }, SLOW));
    expect(await screen.findByText('Service temporarily unavailable. Please try again in a few minutes.')).toHaveAttribute('role', 'alert');
    expect(screen.getByRole('button', { name: 'Re-run failed rows' })).toBeEnabled();
  });
});

describe('rows per second', () => {
  it('rounds to whole rows, keeping a decimal for slow jobs', () => {
    expect(rowsPerSecondText(1234.56)).toBe('1,235 rows/s');
    expect(rowsPerSecondText(0.44)).toBe('0.4 rows/s');
    expect(rowsPerSecondText(12)).toBe('12 rows/s');
  });
});
