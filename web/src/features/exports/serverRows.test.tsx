import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ANN } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { exportRowsPath, type ExportRow, type FilterChoice } from './exportRowsApi';
import { occupantsText } from './ServerRows';

const FILE = 'large_portfolio_export_20261125_101500_000001.csv';
const TOTAL = 100_000;
const COUNTIES = [['53033', 'King', 'WA'], ['06037', 'Los Angeles', 'CA'], [null, null, null]] as const;
const RATINGS = ['Very High', 'Relatively Low', null] as const;

/** Row i of a made-up 100,000-row export: the county and rating cycle, every 7th row is not located. */
function rowAt(index: number): ExportRow {
  const [fips, name, state] = index % 7 === 6 ? COUNTIES[2] : COUNTIES[index % 2]!;
  return {
    index,
    row: index + 2,
    address: `${index + 1} Main St, Seattle, WA 98104 Year Built: 1990\nProperty Type: Office\nTotal Space Available: Unknown`,
    status: fips ? 'answered' : 'not located',
    message: index === 1 ? 'The ZIP code 2134 was read as 02134.' : null,
    match_level: fips ? 'building' : 'none',
    low_confidence: index === 1,
    county_fips: fips,
    county_name: name,
    county_state: state,
    total_score: fips ? (index % 3 === 2 ? 0 : 90.5) : null,
    rating: fips ? RATINGS[index % 2]! : null,
    top_3: fips ? 'Earthquake 99.9; Landslide 99.5; Volcanic Activity 99.1' : null,
    occupant_count: fips ? 3 : null,
    naics_codes: fips ? '522110 722511' : null,
    values: [`L${index + 1}`, String((index % 5) * 1_000_000), index % 4 === 3 ? null : 'Office'],
    sort_score: null,
  };
}

const COLUMNS = ['Location ID', 'TIV', 'Occupancy'];
/** Each row's earthquake score: made up, unknown where the row has no county. */
const quake = (row: ExportRow) => (row.county_fips ? (row.index * 37) % 100 : null);

function keys(row: ExportRow) {
  return {
    match_level: row.match_level ?? 'unknown', county: row.county_fips ?? 'not located', rating: row.rating ?? 'no rating',
    state: row.county_state ?? 'not located', status: row.status ?? 'unknown', low_confidence: row.low_confidence ? 'yes' : 'no',
  };
}

function choices(values: string[], label: (value: string) => string = (v) => v): FilterChoice[] {
  return values.map((value) => ({ value, label: label(value), rows: 1 }));
}

const FILTERS = {
  match_levels: choices(['building', 'none']),
  counties: choices(['53033', '06037', 'not located'], (v) => ({ '53033': 'King, WA', '06037': 'Los Angeles, CA' })[v] ?? 'Not located'),
  ratings: choices(['Very High', 'Relatively Low', 'no rating']),
  states: choices(['CA', 'WA', 'not located'], (v) => (v === 'not located' ? 'Not located' : v)),
  statuses: choices(['answered', 'not located']),
  low_confidence: [{ value: 'yes', label: 'County uncertain', rows: 1 }, { value: 'no', label: 'County certain', rows: 1 }],
};
const FILTER_KEYS = ['match_level', 'county', 'rating', 'state', 'status', 'low_confidence'] as const;

/** The endpoint over the made-up export, filtering and paging like the server; `asked` records each request's query. */
function serveRows(asked: URLSearchParams[] = [], { wait = 0 } = {}) {
  server.use(
    http.get('/api/exports/:name/rows', async ({ request }) => {
      const query = new URL(request.url).searchParams;
      asked.push(query);
      if (wait) await delay(wait);
      const offset = Number(query.get('offset'));
      const limit = Number(query.get('limit'));
      const wanted = Object.fromEntries(FILTER_KEYS.map((key) => [key, query.get(key)]));
      const search = query.get('search')?.toLowerCase();
      const sort = query.get('sort');
      const everything = FILTER_KEYS.every((key) => !wanted[key]) && !search && !sort;
      let matching: number[] = [];
      if (!everything) {
        for (let i = 0; i < TOTAL; i += 1) {
          const row = rowAt(i);
          const k = keys(row);
          if (FILTER_KEYS.every((key) => !wanted[key] || k[key] === wanted[key])
            && (!search || row.address.toLowerCase().includes(search))) matching.push(i);
        }
        if (sort) {
          const sign = query.get('order') === 'asc' ? 1 : -1;
          const score = (i: number) => quake(rowAt(i));
          matching = [...matching.filter((i) => score(i) !== null).sort((a, b) => sign * (score(a)! - score(b)!) || a - b),
            ...matching.filter((i) => score(i) === null)];
        }
      }
      const total = everything ? TOTAL : matching.length;
      const positions = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i);
      const rows = positions.map((p) => rowAt(everything ? p : matching[p]!))
        .map((row) => ({ ...row, sort_score: sort ? quake(row) : null }));
      return HttpResponse.json({
        export: FILE, offset, limit, total_rows: TOTAL, total_matching: total,
        columns: COLUMNS, rows, filters: FILTERS, sort, order: query.get('order') ?? 'desc',
      });
    }),
  );
}

/** The list of rows as it is now (a new stretch or filter draws a new list). */
const rowsList = () => screen.getByRole('region', { name: 'Export rows' });

function open() {
  return renderApp({ route: `/batch-export-detail/${encodeURIComponent(FILE)}`, preloadedState: signedInState(ANN) });
}

describe('the export viewer pages its rows from the server', () => {
  // jsdom lays nothing out: every card would measure 0 px and all 20,000 of a stretch would be "in view".
  beforeEach(() => {
    vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return this.classList.contains('virtual-group') ? 300 : 0;
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it('shows 100,000 rows a few cards at a time, in stretches of 20,000, asking only for the pages it shows', async () => {
    const asked: URLSearchParams[] = [];
    serveRows(asked);
    const { user } = open();
    expect(await screen.findByText(`Displaying 100,000 row(s) from ${FILE}`, {}, { timeout: 5000 })).toBeInTheDocument();
    const list = screen.getByRole('region', { name: 'Export rows' });
    const first = await within(list).findByRole('link', { name: '1 Main St, Seattle, WA 98104' });
    expect(first).toHaveAttribute('href', `/search-result/${encodeURIComponent(`export:${FILE}:0`)}`);
    expect(within(list).getAllByRole('article').length).toBeLessThan(30);
    // The card: building facts from the address text, the score and rating, the county; unknown is a dash.
    const card = first.closest('article')!;
    expect(within(card).getByText('Property Type').nextSibling).toHaveTextContent('Office');
    expect(within(card).getByText('Total Space Available').nextSibling).toHaveTextContent('—');
    expect(card).toHaveTextContent('Total Score: 90.50 (Very High)');
    expect(within(card).getByText('County').nextSibling).toHaveTextContent('King, WA (53033)');
    const uncertain = within(list).getByRole('article', { name: '2 Main St, Seattle, WA 98104' });
    expect(uncertain).toHaveTextContent('County uncertain');
    expect(uncertain).toHaveTextContent('The ZIP code 2134 was read as 02134.');
    expect(within(list).getByRole('article', { name: '3 Main St, Seattle, WA 98104' })).toHaveTextContent('Total Score: 0.00');

    // Only the first page was asked for, once, whatever number of cards shows it.
    expect(asked.map((q) => q.get('offset'))).toEqual(['0']);
    expect(asked[0]!.get('limit')).toBe('100');

    const top = screen.getByRole('navigation', { name: 'Row stretches (top)' });
    expect(top).toHaveTextContent('Rows 1–20,000 of 100,000');
    expect(within(top).getByRole('button', { name: 'Previous rows' })).toBeDisabled();
    await user.click(within(top).getByRole('button', { name: 'Next rows' }));
    expect(top).toHaveTextContent('Rows 20,001–40,000 of 100,000');
    expect(await within(rowsList()).findByRole('link', { name: '20001 Main St, Seattle, WA 98104' })).toHaveAttribute(
      'href', `/search-result/${encodeURIComponent(`export:${FILE}:20000`)}`);
    expect(asked.map((q) => q.get('offset'))).toEqual(['0', '20000']);
    for (let step = 0; step < 3; step += 1) await user.click(within(top).getByRole('button', { name: 'Next rows' }));
    expect(top).toHaveTextContent('Rows 80,001–100,000 of 100,000');
    expect(within(top).getByRole('button', { name: 'Next rows' })).toBeDisabled();
    expect(await within(rowsList()).findByRole('link', { name: '80001 Main St, Seattle, WA 98104' })).toBeInTheDocument();
  });

  it('filters by county, rating and match level on the server, from the keyboard, and says when nothing matches', async () => {
    const asked: URLSearchParams[] = [];
    serveRows(asked);
    const { user } = open();
    const filters = await screen.findByRole('region', { name: 'Filter rows' }, { timeout: 5000 });
    expect(within(filters).getByRole('status')).toHaveTextContent('Showing 100,000 of 100,000 row(s).');
    const county = within(filters).getByRole('combobox', { name: 'County' });
    expect(within(county).getAllByRole('option').map((o) => o.textContent)).toEqual(
      ['All', 'King, WA (1)', 'Los Angeles, CA (1)', 'Not located (1)']);

    county.focus();
    await user.selectOptions(county, 'Los Angeles, CA (1)');
    await waitFor(() => expect(within(filters).getByRole('status')).toHaveTextContent(/^Showing 42,858 of 100,000 row\(s\)\.$/));
    expect(asked.at(-1)!.get('county')).toBe('06037');
    await waitFor(() => expect(within(rowsList()).getByRole('link', { name: '2 Main St, Seattle, WA 98104' })).toBeInTheDocument());
    expect(within(rowsList()).queryByRole('link', { name: '1 Main St, Seattle, WA 98104' })).not.toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Row stretches (top)' })).toHaveTextContent('Rows 1–20,000 of 42,858');

    // Los Angeles rows are all rated Relatively Low: Very High leaves none.
    await user.selectOptions(within(filters).getByRole('combobox', { name: 'Composite rating' }), 'Very High (1)');
    expect(await screen.findByText('No row matches these filters.')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Export rows' })).not.toBeInTheDocument();
    expect(Object.fromEntries(asked.at(-1)!)).toMatchObject({ county: '06037', rating: 'Very High', offset: '0' });

    const clear = within(filters).getByRole('button', { name: 'Clear filters' });
    clear.focus();
    await user.keyboard('{Enter}');
    expect(within(filters).getByRole('status')).toHaveTextContent('Showing 100,000 of 100,000 row(s).');
    expect(within(filters).queryByRole('button', { name: 'Clear filters' })).not.toBeInTheDocument();

    await user.selectOptions(within(filters).getByRole('combobox', { name: 'Match level' }), 'No map point (1)');
    await waitFor(() => expect(within(filters).getByRole('status')).toHaveTextContent('Showing 14,285 of 100,000 row(s).'));
    await waitFor(() => expect(within(rowsList()).getByRole('article', { name: '7 Main St, Seattle, WA 98104' })).toBeInTheDocument());
    const unlocated = within(rowsList()).getByRole('article', { name: '7 Main St, Seattle, WA 98104' });
    expect(unlocated).toHaveTextContent('Total Score: —');
    expect(within(unlocated).getByText('County').nextSibling).toHaveTextContent('Not located');
    expect(within(unlocated).getByText('Occupants').nextSibling).toHaveTextContent('Unknown');
    expect(within(unlocated).getByText('NAICS').nextSibling).toHaveTextContent('Unknown (not located)');
  });

  it("a row's occupants: the count where covered (0 included), 'Not covered' where no source covers it, unknown when not located (#26, item 2)", () => {
    const located = { status: 'answered', county_fips: '12086' };
    expect(occupantsText({ ...located, occupant_count: 0 })).toBe('0');
    expect(occupantsText({ ...located, occupant_count: 1234 })).toBe('1,234');
    expect(occupantsText({ ...located, occupant_count: null })).toBe('Not covered');
    expect(occupantsText({ status: 'not located', county_fips: null, occupant_count: null })).toBe('Unknown (not located)');
  });

  it('shows a loading state while a page is on its way, and a refused filter says why', async () => {
    serveRows([], { wait: 300 });
    const { user } = open();
    expect(await screen.findByText("Loading the export's rows...", {}, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByText(`Displaying 100,000 row(s) from ${FILE}`, {}, { timeout: 3000 })).toBeInTheDocument();

    server.use(http.get('/api/exports/:name/rows', ({ request }) => {
      const query = new URL(request.url).searchParams;
      if (!query.get('county')) return undefined;
      return HttpResponse.json({ status: 'error', error: 'county must be one of the values in this export: 53033.', code: 'unknown_filter_value' }, { status: 400 });
    }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'County' }), 'King, WA (1)');
    expect(await screen.findByText('county must be one of the values in this export: 53033.')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Filter rows' })).toHaveTextContent('These filters could not be applied.');
  });

  it('a page that fails shows where, and Try again asks for it again', async () => {
    let failures = 1;
    serveRows();
    server.use(http.get('/api/exports/:name/rows', ({ request }) => {
      const query = new URL(request.url).searchParams;
      if (query.get('offset') !== '20000' || failures === 0) return undefined;
      failures -= 1;
      return HttpResponse.json({ status: 'error', error: 'The database did not answer; try again.' }, { status: 503 });
    }));
    const { user } = open();
    const top = await screen.findByRole('navigation', { name: 'Row stretches (top)' }, { timeout: 5000 });
    await user.click(within(top).getByRole('button', { name: 'Next rows' }));
    // Each card of the failed page says so (a 5xx in the app's own words), with a way to ask again.
    const failed = await within(rowsList()).findAllByText(/The server ran into a problem/, {}, { timeout: 3000 });
    expect(failed.length).toBeGreaterThan(0);
    await user.click(within(rowsList()).getAllByRole('button', { name: 'Try again' })[0]!);
    expect(await within(rowsList()).findByRole('link', { name: '20001 Main St, Seattle, WA 98104' })).toBeInTheDocument();
  });

  it("shows the user's own columns on each card, filters by state, status, confidence and address, and sorts by a hazard's score", async () => {
    const asked: URLSearchParams[] = [];
    serveRows(asked);
    const { user } = open();
    const list = await screen.findByRole('region', { name: 'Export rows' }, { timeout: 5000 });
    const card = (await within(list).findByRole('link', { name: '1 Main St, Seattle, WA 98104' })).closest('article')!;
    const mine = within(card).getByLabelText('Your columns');
    expect(within(mine).getByText('Location ID').nextSibling).toHaveTextContent('L1');
    expect(within(mine).getByText('TIV').nextSibling).toHaveTextContent('0');
    expect(within(mine).getByText('Occupancy').nextSibling).toHaveTextContent('Office');
    const fourth = within(list).getByRole('article', { name: '4 Main St, Seattle, WA 98104' });
    expect(within(within(fourth).getByLabelText('Your columns')).getByText('Occupancy').nextSibling).toHaveTextContent('—');

    const filters = screen.getByRole('region', { name: 'Filter rows' });
    await user.selectOptions(within(filters).getByRole('combobox', { name: 'State' }), 'WA (1)');
    await user.selectOptions(within(filters).getByRole('combobox', { name: 'Status' }), 'answered (1)');
    await user.selectOptions(within(filters).getByRole('combobox', { name: 'County confidence' }), 'County certain (1)');
    // The search is typed and sent with Enter, from the keyboard.
    await user.type(within(filters).getByRole('searchbox', { name: 'Address contains' }), '11 main{Enter}');
    await waitFor(() => expect(Object.fromEntries(asked.at(-1)!)).toMatchObject(
      { state: 'WA', status: 'answered', low_confidence: 'no', search: '11 main', offset: '0' }));
    await waitFor(() => expect(within(filters).getByRole('status')).toHaveTextContent(/^Showing [\d,]+ of 100,000 row\(s\)\.$/));
    expect(await within(rowsList()).findByRole('link', { name: '11 Main St, Seattle, WA 98104' })).toBeInTheDocument();

    await user.selectOptions(within(filters).getByRole('combobox', { name: 'Sort by' }), 'Earthquake score');
    await user.selectOptions(within(filters).getByRole('combobox', { name: 'Order' }), 'Lowest first');
    await waitFor(() => expect(asked.at(-1)!.get('order')).toBe('asc'));
    expect(asked.at(-1)!.get('sort')).toBe('ERQK_Score');
    await waitFor(() => expect(within(filters).getByRole('status')).toHaveTextContent('Sorted by earthquake score, lowest first; unknown scores last.'));
    const firstSorted = await within(rowsList()).findAllByRole('article');
    expect(firstSorted[0]).toHaveTextContent(/Earthquake score: \d+\.\d\d/);

    await user.clear(within(filters).getByRole('searchbox', { name: 'Address contains' }));
    await waitFor(() => expect(asked.at(-1)!.get('search')).toBeNull());
    await user.click(within(filters).getByRole('button', { name: 'Clear filters' }));
    expect(within(filters).getByRole('status')).toHaveTextContent('Showing 100,000 of 100,000 row(s).');
  });

  it('builds the request path with only the filters set', () => {
    expect(exportRowsPath({ filename: 'a b.csv', offset: 200, limit: 100, match_level: '', county: 'not located', rating: '', order: 'desc' }))
      .toBe('/api/exports/a%20b.csv/rows?offset=200&limit=100&county=not+located');
    expect(exportRowsPath({ filename: 'a.csv', offset: 0, limit: 100, search: '5th ave', sort: 'ERQK_Score', order: 'asc' }))
      .toBe('/api/exports/a.csv/rows?offset=0&limit=100&search=5th+ave&sort=ERQK_Score&order=asc');
  });
});
