import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ANN } from '../test/db';
import { renderWithProviders, signedInState } from '../test/render';
import { captureSavedFiles } from '../test/savedFiles';
import { server } from '../test/server';
import { detailedExportPath } from '../lib/exports/detailed';
import { DETAILED_FORMATS, ExportDownloads } from './ExportDownloads';

const FILE = 'book_export_20261128_101500_000000.csv';
const PARQUET = 'application/vnd.apache.parquet';

describe('the detailed downloads of an export', () => {
  it('offer Parquet after CSV, XLSX and JSON Lines, at the detailed route', () => {
    expect(DETAILED_FORMATS.map((f) => f.format)).toEqual(['csv', 'xlsx', 'jsonl', 'parquet']);
    expect(detailedExportPath(FILE, 'parquet')).toBe(`/api/exports/${FILE}/detailed?format=parquet`);
  });

  it('save the Parquet file under the name the server gives, as a file (not a JSON message)', async () => {
    const asked: (string | null)[] = [];
    server.use(
      http.get('/api/exports/:name/detailed', ({ request }) => {
        const format = new URL(request.url).searchParams.get('format');
        asked.push(format);
        const name = FILE.replace('.csv', '_detailed.parquet');
        return new HttpResponse(new Uint8Array([0x50, 0x41, 0x52, 0x31]), {
          headers: { 'Content-Type': PARQUET, 'Content-Disposition': `attachment; filename="${name}"` },
        });
      }),
    );
    const saved = captureSavedFiles();
    const { user } = renderWithProviders(<ExportDownloads filename={FILE} />, { preloadedState: signedInState(ANN) });
    const formats = screen.getByRole('group', { name: `Other formats of ${FILE}` });
    await user.click(within(formats).getByRole('button', { name: 'Parquet' }));
    await waitFor(() => expect(saved).toEqual([FILE.replace('.csv', '_detailed.parquet')]));
    expect(asked).toEqual(['parquet']);
    expect(await screen.findByText('Parquet download started.')).toBeInTheDocument();
  });
});
