import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { UNREACHABLE } from '../../api/errors';
import { ANN, callCount, db } from '../../test/db';
import { tokens } from '../../test/handlers';
import { renderApp, signedInState } from '../../test/render';
import { captureSavedFiles } from '../../test/savedFiles';
import { server } from '../../test/server';
import { exportGroupId, groupNavState, groupRows, parseExportCsv, parseExportGroupId } from '../../lib/exports/groups';
import { groupDetails } from '../../lib/exports/detailed';
import { DATASETS, NOT_COVERED_COVERAGE, kingCounty, searchResult, uncertainLocation } from '../../test/searchFixtures';

const FILE = 'seattle_export_20261123_101500_000001.csv';
const COLUMNS = ['address', 'name', 'vicinity', 'types', 'lat', 'lng', 'business_status', 'Total_Score', 'Top3_Scores_Combined', 'naics_code'];
const TOP3 = 'Earthquake: 99.9\nLandslide: 99.5\nVolcanic Activity: 99.1';
const CSV = Papa.unparse({
  fields: COLUMNS,
  data: [
    ['701 5th Ave, Seattle, WA 98104 Year Built: 1985\nProperty Type: Large Office\nParking: 319,400 sq ft\nTotal Space Available: 12', 'Columbia Tower Club', '701 5th Ave', 'restaurant', 47.6, -122.33, 'OPERATIONAL', 99.7, TOP3, '722511'],
    ['', 'Bank Office', '701 5th Ave', 'bank', 47.6, -122.33, 'CLOSED_PERMANENTLY', 0, '', '522110'],
    ['1 Market St, San Francisco, CA 94105', 'NA', 'NA', 'NA', 0, 0, 'NA', 98.1, 'Earthquake: 99.9', 'N/A'],
  ],
}, { newline: '\r\n' });

function serveExport(onView?: () => void) {
  server.use(
    http.get('/api/view-export/:name', ({ params }) => {
      onView?.();
      if (params.name !== FILE) return HttpResponse.json({ status: 'error', error: 'Export not found' }, { status: 404 });
      return new HttpResponse(CSV, { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
    }),
  );
}

describe('export groups as search results', () => {
  it("builds SPEC §2's navigation state from a group", () => {
    const { groups } = groupRows(parseExportCsv(CSV));
    const state = groupNavState(groups[0]!, exportGroupId(FILE, 0));
    expect(state).toMatchObject({
      id: `export:${FILE}:0`,
      address: '701 5th Ave, Seattle, WA 98104',
      vacancies: 12, // from 'Total Space Available', never from the parking area
      photosCount: 0, // an export holds no photos
      totalScore: 99.7,
      top3ScoresCombined: TOP3,
      naics_code: '722511',
    });
    expect(state.occupantDetails.map((o) => [o.name, o.address])).toEqual([
      ['Columbia Tower Club', '701 5th Ave, Seattle, WA 98104'],
      ['Bank Office', '701 5th Ave, Seattle, WA 98104'],
    ]);
    expect(state.buildingDetails).toContainEqual(['Year Built', '1985']);

    const empty = groupNavState(groups[1]!, exportGroupId(FILE, 1));
    expect([empty.vacancies, empty.photosCount, empty.naics_code, empty.occupantDetails]).toEqual([null, 0, 'N/A', []]);
  });

  it('round-trips group ids, file names with colons included', () => {
    expect(parseExportGroupId(exportGroupId('a:b.csv', 7))).toEqual({ filename: 'a:b.csv', index: 7 });
    expect(parseExportGroupId('3f2a-uuid')).toBeNull();
    expect(parseExportGroupId('export:x.csv:')).toBeNull();
  });

  it('a group card opens /search-result/{id} from its navigation state, with no second load', async () => {
    let views = 0;
    serveExport(() => (views += 1));
    const { user } = renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
    const link = await screen.findByRole('link', { name: '701 5th Ave, Seattle, WA 98104' }, { timeout: 5000 });
    expect(link).toHaveAttribute('href', `/search-result/${encodeURIComponent(`export:${FILE}:0`)}`);

    await user.click(link);
    expect(await screen.findByRole('heading', { level: 1, name: '701 5th Ave, Seattle, WA 98104' })).toBeInTheDocument();
    const overview = screen.getByRole('region', { name: 'Address Overview' });
    expect(within(overview).getByText('Vacancies').nextSibling).toHaveTextContent(/^12$/);
    expect(within(overview).getByText('Occupants').nextSibling).toHaveTextContent(/^2$/);
    const building = screen.getByRole('region', { name: 'Building Details' });
    expect(within(building).getByText('Property Type').nextSibling).toHaveTextContent('Large Office');
    expect(screen.getByTestId('total-score')).toHaveTextContent(/^99\.70$/);
    expect(screen.getByRole('cell', { name: 'Bank Office Closed permanently' })).toBeInTheDocument();
    expect(views).toBe(1);
  });

  it('opened directly (a reload or a shared link) the group is read from the export file', async () => {
    serveExport();
    const { user } = renderApp({
      route: `/search-result/${encodeURIComponent(`export:${FILE}:1`)}`,
      preloadedState: signedInState(ANN),
    });
    expect(await screen.findByRole('heading', { level: 1, name: '1 Market St, San Francisco, CA 94105' })).toBeInTheDocument();
    expect(screen.getByText(`From the batch export ${FILE}, address group 2 of 2.`)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByRole('heading', { level: 1, name: '701 5th Ave, Seattle, WA 98104' })).toBeInTheDocument();
  });

  it('a group that does not exist, or an export that does not, is an error', async () => {
    serveExport();
    renderApp({ route: `/search-result/${encodeURIComponent(`export:${FILE}:9`)}`, preloadedState: signedInState(ANN) });
    expect(await screen.findByText('Could not load result data.')).toBeInTheDocument();
  });

  it("another user's or a missing export shows the server's message", async () => {
    serveExport();
    renderApp({ route: `/search-result/${encodeURIComponent('export:nope.csv:0')}`, preloadedState: signedInState(ANN) });
    expect(await screen.findByText('Export not found')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Go Back' })).toBeInTheDocument();
  });
});

/** The export routes answer only a bearer token the server still accepts, like the real ones. */
function serveExportWithAuth(views: (string | null)[], downloads: (string | null)[]) {
  const accepted = (request: Request) => tokens.has((request.headers.get('Authorization') ?? '').replace('Bearer ', ''));
  const expired = () => HttpResponse.json({ status: 'error', error: 'Invalid or expired token' }, { status: 401 });
  server.use(
    http.get('/api/view-export/:name', ({ request }) => {
      views.push(request.headers.get('Authorization'));
      if (!accepted(request)) return expired();
      return new HttpResponse(CSV, { headers: { 'Content-Type': 'text/csv; charset=utf-8' } });
    }),
    http.get('/api/download/:name', ({ request }) => {
      downloads.push(request.headers.get('Authorization'));
      if (!accepted(request)) return expired();
      return new HttpResponse(CSV, {
        headers: { 'Content-Type': 'text/csv', 'Content-Disposition': `attachment; filename="${FILE}"` },
      });
    }),
  );
}

describe('the export viewer after the access token expired', () => {
  it('refreshes the token on a 401 and retries the view, then the download', async () => {
    const views: (string | null)[] = [];
    const downloads: (string | null)[] = [];
    serveExportWithAuth(views, downloads);
    db.refreshCookie = ANN.email;
    const saved = captureSavedFiles();
    // A token the server no longer accepts, though the app still thinks it fresh (revoked, or a clock skew).
    const { user, store } = renderApp({
      route: `/batch-export-detail/${encodeURIComponent(FILE)}`,
      preloadedState: signedInState(ANN, { token: 'expired-token' }),
    });

    expect(await screen.findByRole('link', { name: '701 5th Ave, Seattle, WA 98104' })).toBeInTheDocument();
    expect(views).toEqual(['Bearer expired-token', `Bearer ${store.getState().auth.accessToken}`]);
    expect(callCount('/api/auth/refresh')).toBe(1);
    expect(screen.queryByText(/Invalid or expired token/)).not.toBeInTheDocument();

    tokens.delete(store.getState().auth.accessToken!); // expires again before the download
    await user.click(screen.getByRole('button', { name: 'Download CSV' }));
    await waitFor(() => expect(saved).toEqual([FILE]));
    expect(downloads).toHaveLength(2);
    expect(downloads[1]).toBe(`Bearer ${store.getState().auth.accessToken}`);
    expect(callCount('/api/auth/refresh')).toBe(2);
    expect(await screen.findByText('Download started.')).toBeInTheDocument();
  });
});

describe('the export viewer says what went wrong and what to do', () => {
  it('a file the browser cannot parse: no parser message, and the download offered', async () => {
    server.use(http.get('/api/view-export/:name', () =>
      new HttpResponse('just one line of text without any delimiter', { headers: { 'Content-Type': 'text/csv' } })));
    renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This export could not be read in the browser. Download the CSV to open it in a spreadsheet.');
    expect(alert).not.toHaveTextContent(/Parsing|delimit/i);
    expect(screen.getByRole('button', { name: 'Download CSV' })).toBeEnabled();
  });

  it('a network failure says the server could not be reached, never the browser error', async () => {
    server.use(http.get('/api/view-export/:name', () => HttpResponse.error()));
    renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(UNREACHABLE);
    expect(alert).not.toHaveTextContent(/TypeError|Failed to fetch/);
  });

  it("a failed download: 'Download error:' and the server's reason", async () => {
    serveExport();
    server.use(http.get('/api/download/:name', () =>
      HttpResponse.json({ status: 'error', error: 'Export not yet complete' }, { status: 409 })));
    const { user } = renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
    await user.click(await enabledButton('Download CSV'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Download error: Export not yet complete');
  });
});

/**
 * A button once it can be pressed: the download buttons are disabled while the export's rows load,
 * and a click on a disabled button does nothing (on a busy machine the rows are still loading).
 */
async function enabledButton(name: string): Promise<HTMLElement> {
  const button = await screen.findByRole('button', { name });
  await waitFor(() => expect(button).toBeEnabled());
  return button;
}

/** The detailed export as JSON Lines: one line per address, the whole answer (issue #11's endpoint). */
function detailedJsonl(): string {
  const seattle = searchResult('s', '701 5th Ave, Seattle, WA 98104', { location: kingCounty() });
  const sf = searchResult('f', '1 Market St, San Francisco, CA 94105', { location: uncertainLocation() });
  return [seattle, sf].map((answer) => JSON.stringify(answer)).join('\n') + '\n';
}

function serveDetailed(onFormat?: (format: string | null, auth: string | null) => void) {
  server.use(
    http.get('/api/exports/:name/detailed', ({ request, params }) => {
      const format = new URL(request.url).searchParams.get('format');
      onFormat?.(format, request.headers.get('Authorization'));
      if (params.name !== FILE) return HttpResponse.json({ status: 'error', error: 'Export not found' }, { status: 404 });
      if (format === 'jsonl') return new HttpResponse(detailedJsonl(), { headers: { 'Content-Type': 'application/x-ndjson' } });
      const type = format === 'xlsx' ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv';
      const name = FILE.replace('.csv', format === 'xlsx' ? '.xlsx' : '_detailed.csv');
      return new HttpResponse('bytes', { headers: { 'Content-Type': type, 'Content-Disposition': `attachment; filename="${name}"` } });
    }),
  );
}

describe('an export group page shows what a single search shows', () => {
  it('reads address groups out of JSON Lines, one line per address or per occupant', () => {
    const perOccupant = [
      JSON.stringify({ address: '1 A St', AVLN_Score: null, ERQK_Score: 12.5, receipt: { nri_version: '1.20.0' } }),
      JSON.stringify({ address: '', name: 'Second occupant' }),
      'not json',
      JSON.stringify({ address: '2 B St', perils: { ERQK_Score: 3 } }),
    ].join('\n');
    const groups = groupDetails(perOccupant);
    expect(groups).toHaveLength(2);
    expect(groups[0]!.perils).toMatchObject({ AVLN_Score: null, ERQK_Score: 12.5, HAIL_Score: null });
    expect(groups[0]!.receipt?.nri_version).toBe('1.20.0');
    expect(groups[1]!.perils?.ERQK_Score).toBe(3);
    expect(groupDetails(JSON.stringify({ address: '3 C St', name: 'x' }))[0]!.perils).toBeNull();
  });

  it('opened from the viewer: the peril chart, receipt and location of the detailed export, and Next works', async () => {
    serveExport();
    serveDetailed();
    const { user } = renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
    await user.click(await screen.findByRole('link', { name: '701 5th Ave, Seattle, WA 98104' }, { timeout: 5000 }));
    // The chart's chunk loads on first use: on a busy machine that takes more than a second.
    expect(await screen.findByTestId('peril-chart', {}, { timeout: 5000 })).toBeInTheDocument();
    const receipt = screen.getByRole('region', { name: 'Score receipt' });
    expect(within(receipt).getByText('King, WA (53033)')).toBeInTheDocument();
    expect(within(receipt).getByRole('table', { name: 'Datasets' })).toHaveTextContent('2026-08-02');
    const overview = screen.getByRole('region', { name: 'Address Overview' });
    expect(within(overview).getByText('Last Update').nextSibling).toHaveTextContent(/^Occupants 2026-08-02 · NRI 2025-12$/);
    expect(within(overview).getByText('Operation alerts').nextSibling).toHaveTextContent(/^1$/);
    expect(within(screen.getByRole('region', { name: 'Location' })).getByText('Located by').nextSibling).toHaveTextContent('ZIP code in one county');
    expect(DATASETS.length).toBeGreaterThan(0);

    const next = screen.getByRole('button', { name: 'Next' });
    await waitFor(() => expect(next).toBeEnabled());
    await user.click(next);
    expect(await screen.findByRole('heading', { level: 1, name: '1 Market St, San Francisco, CA 94105' })).toBeInTheDocument();
    expect(await screen.findByRole('note', { name: 'County uncertain' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  }, 20_000);

  it('without a detailed export the page has no chart, and a row without a score says N/A, never 0', async () => {
    const csv = Papa.unparse({ fields: COLUMNS, data: [['9 Blank St, Seattle, WA 98104', 'X', 'NA', 'bank', 0, 0, 'OPERATIONAL', '', '', '522110']] });
    server.use(http.get('/api/view-export/:name', () => new HttpResponse(csv, { headers: { 'Content-Type': 'text/csv' } })));
    renderApp({ route: `/search-result/${encodeURIComponent(`export:${FILE}:0`)}`, preloadedState: signedInState(ANN) });
    expect(await screen.findByRole('heading', { level: 1, name: '9 Blank St, Seattle, WA 98104' })).toBeInTheDocument();
    expect(screen.getByTestId('total-score')).toHaveTextContent(/^N\/A$/);
    const overview = screen.getByRole('region', { name: 'Address Overview' });
    expect(within(overview).getByText('Last Update').nextSibling).toHaveTextContent(/^N\/A$/);
    expect(screen.queryByTestId('peril-chart')).not.toBeInTheDocument();
  });

  it("reads each group's occupant coverage: given, or not covered where occupant_count is null (#26, item 2)", () => {
    const lines = [
      JSON.stringify({ address: '1 A St', occupant_coverage: NOT_COVERED_COVERAGE }),
      JSON.stringify({ address: '2 B St', occupant_count: null }),
      JSON.stringify({ address: '3 C St', occupant_count: 0 }),
      JSON.stringify({ address: '4 D St' }),
    ].join('\n');
    expect(groupDetails(lines).map((g) => g.occupantCoverage?.covered ?? null)).toEqual([false, false, null, null]);
  });

  it("a group outside every occupant source's coverage reads 'Not covered', and its Last Update has no occupants' date (#26, item 2)", async () => {
    serveExport();
    const miami = searchResult('m', '1 Market St, San Francisco, CA 94105', {
      location: uncertainLocation(), total_results: null, occupants: [], occupant_coverage: NOT_COVERED_COVERAGE,
    });
    const lines = [searchResult('s', '701 5th Ave, Seattle, WA 98104'), miami].map((a) => JSON.stringify(a)).join('\n');
    server.use(http.get('/api/exports/:name/detailed', () => new HttpResponse(lines, { headers: { 'Content-Type': 'application/x-ndjson' } })));
    renderApp({ route: `/search-result/${encodeURIComponent(`export:${FILE}:1`)}`, preloadedState: signedInState(ANN) });
    const overview = await screen.findByRole('region', { name: 'Address Overview' }, { timeout: 5000 });
    await waitFor(() => expect(within(overview).getByText('Occupants').nextSibling).toHaveTextContent(/^Not covered$/));
    expect(within(overview).getByText('Photos').nextSibling).toHaveTextContent(/^Not covered$/);
    expect(within(overview).getByText('Operation alerts').nextSibling).toHaveTextContent(/^Not covered$/);
    expect(within(overview).getByText('Last Update').nextSibling).toHaveTextContent(/^NRI 2025-12$/);
    expect(screen.getAllByText(NOT_COVERED_COVERAGE.covers)).toHaveLength(1);
  });

  it('opened directly, the group page shows the same chart as from the viewer', async () => {
    serveExport();
    serveDetailed();
    renderApp({ route: `/search-result/${encodeURIComponent(`export:${FILE}:0`)}`, preloadedState: signedInState(ANN) });
    expect(await screen.findByTestId('peril-chart')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Score receipt' })).toBeInTheDocument();
  });
});

describe('the export in each format', () => {
  it('the viewer downloads Detailed CSV, XLSX and JSON Lines from /api/exports/{filename}/detailed', async () => {
    serveExport();
    const asked: [string | null, string | null][] = [];
    serveDetailed((format, auth) => asked.push([format, auth]));
    const saved = captureSavedFiles();
    const { user } = renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
    const formats = await screen.findByRole('group', { name: `Other formats of ${FILE}` });
    await enabledButton('JSON Lines');
    await user.click(within(formats).getByRole('button', { name: 'Detailed CSV' }));
    await waitFor(() => expect(saved).toHaveLength(1));
    await user.click(within(formats).getByRole('button', { name: 'XLSX' }));
    await waitFor(() => expect(saved).toHaveLength(2));
    await user.click(within(formats).getByRole('button', { name: 'JSON Lines' }));
    await waitFor(() => expect(saved).toHaveLength(3));
    expect(asked.map(([format]) => format)).toEqual(['csv', 'xlsx', 'jsonl']);
    expect(asked.every(([, auth]) => auth?.startsWith('Bearer '))).toBe(true);
    expect(saved.slice(0, 2)).toEqual([FILE.replace('.csv', '_detailed.csv'), FILE.replace('.csv', '.xlsx')]);
    expect(saved[2]).toBe(FILE.replace('.csv', '.jsonl')); // no Content-Disposition: the page's own name
    expect(screen.getByText('JSON Lines download started.')).toBeInTheDocument();
  });

  it("a failed format download says 'Download error:' and the server's reason", async () => {
    serveExport();
    server.use(http.get('/api/exports/:name/detailed', () =>
      HttpResponse.json({ status: 'error', error: 'Unknown format' }, { status: 400 })));
    const { user } = renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
    await user.click(await enabledButton('XLSX'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Download error: Unknown format');
  });

  it('the export history offers every format behind one keyboard-operable button', async () => {
    server.use(http.get('/api/list-exported-files', () => HttpResponse.json({
      status: 'success',
      files: [{ id: '1', name: FILE, path: `exports/${FILE}`, exported_at: '2026-11-23T10:15:00Z', source: 'computed' }],
    })));
    const asked: string[] = [];
    serveDetailed((format) => asked.push(String(format)));
    const saved = captureSavedFiles();
    const { user } = renderApp({ route: '/data-processing', preloadedState: signedInState(ANN) });
    const toggle = await screen.findByRole('button', { name: `Download formats for ${FILE}` });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('button', { name: 'XLSX' })).not.toBeInTheDocument();
    toggle.focus();
    await user.keyboard('{Enter}');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const formats = screen.getByRole('group', { name: `Other formats of ${FILE}` });
    expect(within(formats).getAllByRole('button').map((b) => b.textContent)).toEqual(['CSV', 'Detailed CSV', 'XLSX', 'JSON Lines', 'Parquet']);
    await user.click(within(formats).getByRole('button', { name: 'XLSX' }));
    await waitFor(() => expect(saved).toEqual([FILE.replace('.csv', '.xlsx')]));
    expect(asked).toEqual(['xlsx']);
  });
});

describe("the viewer of an export read in the browser says how many rows it left out", () => {
  // SPEC §3: rows before the first address belong to no group, so the viewer leaves them out and says how many.
  const withOrphans = (orphans: number) => Papa.unparse({
    fields: COLUMNS,
    data: [
      ...Array.from({ length: orphans }, (_, i) => ['', `Occupant ${i + 1}`, '701 5th Ave', 'bank', 47.6, -122.33, 'OPERATIONAL', 0, '', '522110']),
      ['1 Market St, San Francisco, CA 94105', 'NA', 'NA', 'NA', 0, 0, 'NA', 98.1, 'Earthquake: 99.9', 'N/A'],
      ['', 'Ferry Cafe', '1 Market St', 'cafe', 37.79, -122.39, 'OPERATIONAL', 0, '', '722515'],
    ],
  }, { newline: '\r\n' });
  const open = (csv: string) => {
    server.use(http.get('/api/view-export/:name', () => new HttpResponse(csv, { headers: { 'Content-Type': 'text/csv; charset=utf-8' } })));
    renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
  };

  it('two rows before the first address: the banner counts two', async () => {
    open(withOrphans(2));
    expect(await screen.findByText(/^Displaying 1 address group\(s\) from /)).toBeInTheDocument();
    expect(screen.getByText('2 row(s) before the first address were left out.')).toBeInTheDocument();
    // The occupant after the address is in its group, not counted as left out.
    expect(screen.queryByText(/3 row\(s\) before/)).not.toBeInTheDocument();
  });

  it('none left out: no banner', async () => {
    open(withOrphans(0));
    expect(await screen.findByText(/^Displaying 1 address group\(s\) from /)).toBeInTheDocument();
    expect(screen.queryByText(/before the first address were left out/)).not.toBeInTheDocument();
  });
});
