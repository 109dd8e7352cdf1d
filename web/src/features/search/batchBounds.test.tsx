import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { BatchJob, ExportedFile } from '../../api/types';
import { ADMIN, ANN, callCount } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';

const EXPORT = 'portfolio_export_20261123_101500_000001.csv';
const CLIENT_EXPORT = 'client-supplied_export_20261123_111500_000001.csv';
const SLOW = { timeout: 4000 }; // the dashboard polls the jobs once a second

function job(values: Partial<BatchJob>): BatchJob {
  return {
    id: 'job-1', status: 'running', stage: 'search', done: 0, total: 200, eta_seconds: null, export_filename: null, error: null,
    ...values,
  };
}

function exported(name: string, source: ExportedFile['source']): ExportedFile {
  return { id: name, name, path: `exports/${name}`, exported_at: '2026-11-23T10:15:00Z', source };
}

/** A server whose batch job runs while `state.job` says so, and whose export list is `state.files`. */
function useBatchServer(state: { job: BatchJob | null; files: ExportedFile[] }) {
  server.use(
    http.get('/api/batch-jobs', () =>
      HttpResponse.json({ status: 'success', jobs: state.job && ['queued', 'running'].includes(state.job.status) ? [state.job] : [] }),
    ),
    http.get('/api/batch-jobs/:id', ({ params }) =>
      state.job && params.id === state.job.id
        ? HttpResponse.json({ status: 'success', job: state.job })
        : HttpResponse.json({ status: 'error', error: 'No such batch job' }, { status: 404 }),
    ),
    http.get('/api/list-exported-files', () => HttpResponse.json({ status: 'success', files: state.files })),
    http.post('/api/upload-csv', () =>
      HttpResponse.json({ status: 'success', file_id: 'file-1', file_path: 'uploads/portfolio.csv', rows: 200 }),
    ),
    http.post('/api/batch-jobs', () => {
      state.job = job({ status: 'queued' });
      return HttpResponse.json({ status: 'success', job: state.job }, { status: 202 });
    }),
  );
}

function openDashboard(user = ANN) {
  return renderApp({ route: '/data-processing', preloadedState: signedInState(user) });
}

describe('batch jobs survive leaving the dashboard', () => {
  it('shows a running job from the server after a remount, then its completion message', async () => {
    const state: { job: BatchJob | null; files: ExportedFile[] } = { job: null, files: [] };
    useBatchServer(state);
    const first = openDashboard();
    await first.user.upload(
      await screen.findByLabelText('Choose CSV file'),
      new File(['Street Address,City,State,Zip,Country\n'], 'portfolio.csv', { type: 'text/csv' }),
    );
    await screen.findByText('File uploaded successfully: portfolio.csv');
    await first.user.click(screen.getByRole('button', { name: 'Process Batch File' }));
    await screen.findByText(/Queued/);
    first.unmount(); // the user goes elsewhere (or reloads) while the job runs

    state.job = job({ done: 80 });
    openDashboard();
    const bar = await screen.findByRole('progressbar', { name: 'Batch progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(screen.getByText(/40% \(80 of 200\)/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Processing...' })).toBeDisabled();

    state.job = job({ done: 150 });
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'Batch progress' })).toHaveAttribute('aria-valuenow', '75'), SLOW);

    state.job = job({ status: 'done', stage: 'export', done: 200, export_filename: EXPORT });
    state.files = [exported(EXPORT, 'computed')];
    expect(await screen.findByText(`Batch complete: 200 address(es) exported to ${EXPORT}`, {}, SLOW)).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Batch progress' })).not.toBeInTheDocument();
    expect(await within(screen.getByRole('list', { name: 'Exported files' })).findByText(EXPORT)).toBeInTheDocument();
  }, 15_000);

  it('tells about a job that failed while the user was away', async () => {
    const state: { job: BatchJob | null; files: ExportedFile[] } = { job: job({ done: 10 }), files: [] };
    useBatchServer(state);
    openDashboard();
    await screen.findByRole('progressbar', { name: 'Batch progress' });
    state.job = job({ status: 'failed', error: 'Batch processing failed: OSError' });
    expect(await screen.findByText('Batch processing error: Batch processing failed: OSError', {}, SLOW)).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Search' })).toBeEnabled();
  });
});

describe('the batch row allowance and storage', () => {
  it("shows a regular user's rows used, remaining and storage", async () => {
    openDashboard();
    expect(await screen.findByTestId('batch-rows-used')).toHaveTextContent('2,500 / 10,000 rows used');
    expect(screen.getByText(/7,500 batch rows remaining this month/)).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Batch rows used this month' })).toHaveAttribute('aria-valuenow', '2500');
    expect(screen.getByTestId('storage-used')).toHaveTextContent('30.0 MB of 200.0 MB used');
  });

  it('shows no row limit for an administrator', async () => {
    openDashboard(ADMIN);
    expect(await screen.findByText('No Batch Row Limit')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Batch rows used this month' })).not.toBeInTheDocument();
  });
});

describe('the export history', () => {
  it('deletes an export after a confirmation', async () => {
    const state = { job: null, files: [exported(EXPORT, 'computed')] };
    useBatchServer(state);
    server.use(
      http.delete('/api/exports/:name', ({ params }) => {
        state.files = state.files.filter((file) => file.name !== params.name);
        return HttpResponse.json({ status: 'success' });
      }),
    );
    const { user } = openDashboard();
    await user.click(await screen.findByRole('button', { name: `Delete ${EXPORT}` }));
    const confirm = screen.getByRole('group', { name: `Delete ${EXPORT}?` });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(state.files).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: `Delete ${EXPORT}` }));
    await user.click(within(screen.getByRole('group', { name: `Delete ${EXPORT}?` })).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(`Deleted ${EXPORT}.`)).toBeInTheDocument();
    expect(await screen.findByText(/No exports yet/)).toBeInTheDocument();
  });

  it('says why a delete failed', async () => {
    useBatchServer({ job: null, files: [exported(EXPORT, 'computed')] });
    server.use(http.delete('/api/exports/:name', () => HttpResponse.json({ status: 'error', error: 'Export not found' }, { status: 404 })));
    const { user } = openDashboard();
    await user.click(await screen.findByRole('button', { name: `Delete ${EXPORT}` }));
    await user.click(within(screen.getByRole('group', { name: `Delete ${EXPORT}?` })).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(`Could not delete ${EXPORT}: Export not found`);
  });

  it('marks client-supplied exports in the history and in the viewer', async () => {
    useBatchServer({ job: null, files: [exported(CLIENT_EXPORT, 'client'), exported(EXPORT, 'computed')] });
    server.use(
      http.get('/api/view-export/:name', () =>
        new HttpResponse(
          'address,name,vicinity,types,lat,lng,business_status,Total_Score,Top3_Scores_Combined,naics_code\n' +
            '"1 Main St, Springfield, IL 62701",NA,NA,NA,0,0,NA,50.1,Tornado: 90.2,N/A\n',
          { headers: { 'Content-Type': 'text/csv' } },
        ),
      ),
    );
    const { user } = openDashboard();
    const list = await screen.findByRole('list', { name: 'Exported files' });
    const [client, computed] = within(list).getAllByRole('link');
    expect(client).toHaveTextContent('Client-supplied data');
    expect(computed).not.toHaveTextContent('Client-supplied data');

    await user.click(client!);
    expect(await screen.findByText(/stored as given: PerilScope did not compute or check them/)).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Client-supplied data');
    expect(callCount('/api/exports DELETE')).toBe(0);
  });
});
