import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { PortfolioSummary } from '../../api/types';
import { ANN } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { NOT_SCORED, classBounds, classColours, classOf, mapUnits, ratingLabel, unknownParts } from './figures';

const FILE = 'book_export_20261125_120000_000001.csv';
const ROUTE = `/portfolio/${encodeURIComponent(FILE)}`;

function distribution(peril: string, name: string, bins: number[], unknown: number, high: number) {
  return { peril, name, bins, scored: bins.reduce((a, b) => a + b, 0), unknown, high, ratings: {} };
}

const NO_TRACT = { nri_version: '1.20.0', tract_score: null, tract_rating: null, tract_nri_version: null };

const SUMMARY: PortfolioSummary = {
  export: FILE,
  headline: { rows: 6, located: 5, located_by_match_level: { building: 2, zip_centroid: 3 }, low_confidence: 1,
    not_located: 1, with_occupants: 2, with_building_record: 2, occupants_not_covered: 0 },
  distributions: [
    distribution('composite', 'Composite (all 18 perils)', [0, 0, 0, 0, 0, 0, 0, 0, 1, 3], 2, 4),
    distribution('ERQK', 'Earthquake', [0, 0, 0, 0, 0, 0, 0, 0, 0, 4], 2, 4),
  ],
  counties: [
    { county_fips: '53033', county_name: 'King', state: 'WA', locations: 3, composite_score: 99.7, composite_rating: 'Very High',
      top_hazards: [{ peril: 'ERQK', name: 'Earthquake', score: 99.9 }], value: null },
    { county_fips: '09110', county_name: 'Capitol', state: 'CT', locations: 1, composite_score: 80.1, composite_rating: 'Relatively High',
      top_hazards: [], value: null },
    { county_fips: '72127', county_name: 'San Juan', state: 'PR', locations: 1, composite_score: null, composite_rating: null,
      top_hazards: [], value: null },
  ],
  value: null,
  ranked_by: 'composite',
  riskiest: [
    { index: 0, row: 2, address: '701 5th Ave, Seattle, WA 98104', county_fips: '53033', county_name: 'King', state: 'WA', score: 99.7, rating: 'Very High', ...NO_TRACT },
    { index: 3, row: 5, address: '1 Pratt St, Hartford, CT 06103', county_fips: '09110', county_name: 'Capitol', state: 'CT', score: 80.1, rating: 'Relatively High', ...NO_TRACT },
  ],
  sectors: [
    { sector: 'none', name: null, locations: 4, ratings: { 'Very High': 1, 'no rating': 3 } },
    { sector: '52', name: 'Finance and Insurance', locations: 2, ratings: { 'Very High': 2 } },
  ],
  tracts: null,
  value_columns: ['policy_no', 'tiv'],
};

const V119 = '1.19.0 (March 2023)';
const V120 = '1.20.0 (December 2025)';
// Seattle's tract scores are from v1.19 beside its v1.20 county scores; Hartford has none.
const WITH_TRACTS: PortfolioSummary = {
  ...SUMMARY,
  riskiest: [
    { ...SUMMARY.riskiest[0]!, tract_score: 61.5, tract_rating: 'Relatively High', tract_nri_version: V119 },
    SUMMARY.riskiest[1]!,
  ],
  tracts: {
    locations: 2,
    by_version: { [V119]: 2 },
    county_versions: { [V120]: 2 },
    other_release: 2,
    distributions: [
      { peril: 'composite', name: 'Composite (all 18 perils)', bins: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0], scored: 1, unknown: 1, high: 1, county_high: 2 },
      { peril: 'ERQK', name: 'Earthquake', bins: [0, 0, 0, 0, 0, 0, 0, 0, 0, 2], scored: 2, unknown: 0, high: 2, county_high: 2 },
    ],
  },
};

function servePortfolio(seen: URL[] = []) {
  server.use(
    http.get('/api/exports/:name/portfolio', ({ params, request }) => {
      const url = new URL(request.url);
      seen.push(url);
      if (params.name !== FILE) return HttpResponse.json({ status: 'error', error: 'Export not found' }, { status: 404 });
      const column = url.searchParams.get('value_column');
      if (!column) return HttpResponse.json({ ...SUMMARY, ranked_by: url.searchParams.get('peril') ?? 'composite' });
      return HttpResponse.json({
        ...SUMMARY,
        counties: SUMMARY.counties.map((c, i) => ({ ...c, value: [3_000_000, 500, 0][i]! })),
        value: { column, total: 3_000_500, parsed: 4, unparsed: 1, blank: 1,
          by_rating: [{ peril: 'composite', ratings: { 'Very High': 3_000_000, 'Relatively High': 500 } }] },
      });
    }),
  );
}

describe('map colours', () => {
  it('puts Connecticut planning regions together and keeps counties apart', () => {
    const units = mapUnits([
      ...SUMMARY.counties,
      { ...SUMMARY.counties[1]!, county_fips: '09190', county_name: 'Western', locations: 4 },
    ]);
    expect(units.get('09')?.locations).toBe(5);
    expect(units.get('53033')?.locations).toBe(3);
    expect(units.has('09110')).toBe(false);
  });

  it('classes by quantiles, each value in the class of its first bound at or above it', () => {
    const bounds = classBounds([1, 1, 2, 3, 5, 8, 13, 21, 34, 55]);
    expect(bounds).toEqual([1, 3, 8, 21, 55]);
    expect([classOf(1, bounds), classOf(4, bounds), classOf(55, bounds)]).toEqual([0, 2, 4]);
    // Mostly one or two a county: the few large counties still get classes of their own.
    expect(classBounds([...Array(60).fill(1), ...Array(30).fill(2), 7, 40, 258])).toEqual([1, 2, 10, 51, 258]);
    expect(classBounds([])).toEqual([]);
    expect(classColours(classBounds([7]))).toHaveLength(1);
  });
});

// The page's chunk (recharts, d3-geo, the county shapes) is loaded on first use: the first finds wait longer.
describe('the portfolio page', { timeout: 30_000 }, () => {
  it('shows the headline, histogram, map, counties, riskiest and occupancy of a batch', async () => {
    servePortfolio();
    renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    expect(await screen.findByRole('heading', { level: 1, name: `Portfolio: ${FILE}` }, { timeout: 10_000 })).toBeInTheDocument();
    const book = await screen.findByRole('region', { name: 'The book' }, { timeout: 10_000 });
    expect(within(book).getByText('Not located (16.7%)')).toBeInTheDocument();
    expect(within(book).getByText(/At the building 2 · ZIP centre 3/)).toBeInTheDocument();
    expect(screen.getByTestId('histogram')).toHaveTextContent(/2 without one .* left out, not counted as 0/);

    const map = await screen.findByTestId('county-map', {}, { timeout: 10_000 });
    // One path per county on the map; the counties present (and all of Connecticut) are coloured and focusable.
    expect(map.querySelectorAll('path[data-fips]').length).toBeGreaterThan(3000);
    const present = map.querySelectorAll('path.county-present');
    expect([...present].map((p) => p.getAttribute('data-fips')).filter((f) => !f!.startsWith('09'))).toEqual(['53033']);
    expect([...present].filter((p) => p.getAttribute('data-fips')!.startsWith('09'))).toHaveLength(8);
    // The map is one tab stop (#26, item 8): one county in the tab order, the others reached with the arrow keys.
    expect([...present].filter((p) => p.getAttribute('tabindex') === '0')).toHaveLength(1);
    expect([...present].filter((p) => p.getAttribute('tabindex') === '-1')).toHaveLength(present.length - 1);
    expect(screen.getByText(/Connecticut: the scores are for its 9 planning regions/)).toBeInTheDocument();
    expect(screen.getByText(/Not on the map: San Juan/)).toBeInTheDocument();

    const riskiest = screen.getByRole('table', { name: 'The 2 riskiest locations by Composite (all 18 perils)' });
    expect(within(riskiest).getByRole('link', { name: '701 5th Ave, Seattle, WA 98104' }))
      .toHaveAttribute('href', `/search-result/${encodeURIComponent(`export:${FILE}:0`)}`);
    const sectors = screen.getByRole('table', { name: /Locations by sector and/ });
    expect(within(sectors).getByRole('rowheader', { name: 'Finance and Insurance (52)' })).toBeInTheDocument();
  });

  it('shows no census-tract panel nor tract column when no location has tract scores', async () => {
    servePortfolio();
    renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    const riskiest = await screen.findByRole('table', { name: /riskiest locations/ }, { timeout: 10_000 });
    expect(within(riskiest).queryByRole('columnheader', { name: /tract/i })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Census tract scores' })).not.toBeInTheDocument();
  });

  it('shows the census-tract scores beside the county ones, each with its NRI release', async () => {
    server.use(http.get('/api/exports/:name/portfolio', () => HttpResponse.json(WITH_TRACTS)));
    renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    const panel = await screen.findByRole('region', { name: 'Census tract scores' }, { timeout: 10_000 });
    expect(panel).toHaveTextContent('2 of 6 locations (33.3%) have census-tract scores');
    expect(panel).toHaveTextContent(`Tract scores: NRI ${V119}: 2. County scores of the same locations: NRI ${V120}: 2.`);
    // Releases are never mixed silently.
    expect(within(panel).getByRole('status')).toHaveTextContent(
      `2 location(s) have tract scores from another NRI release than their county scores (tract: ${V119}; county: ${V120})`);
    expect(within(panel).getByTestId('tract-histogram')).toHaveTextContent(/1 with tract scores but none for this peril are left out, not counted as 0/);
    const table = within(panel).getByRole('table', { name: /census tract and county/ });
    expect(within(table).getByRole('columnheader', { name: `Tract rated high (NRI ${V119})` })).toBeInTheDocument();
    expect(within(table).getByRole('columnheader', { name: `County rated high, same locations (NRI ${V120})` })).toBeInTheDocument();
    const composite = within(table).getByRole('row', { name: /^Composite/ });
    expect(within(composite).getAllByRole('cell').map((c) => c.textContent)).toEqual(['1', '2', '1']);

    const riskiest = screen.getByRole('table', { name: /riskiest locations/ });
    expect(within(riskiest).getByRole('columnheader', { name: 'County score' })).toBeInTheDocument();
    const rows = within(riskiest).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent(`61.5 Relatively High (NRI ${V119}; county NRI 1.20.0)`);
    expect(within(rows[1]!).getAllByRole('cell').at(-1)).toHaveTextContent('N/A'); // unknown, not 0
  });

  it('the map is one tab stop: Tab goes from the skip link through one county to what follows; arrows move between counties (#26, item 8)', async () => {
    servePortfolio();
    const { user } = renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    const map = await screen.findByTestId('county-map', {}, { timeout: 10_000 });
    await waitFor(() => expect(map.querySelectorAll('path.county-present').length).toBe(9));
    await screen.findByRole('table', { name: 'Locations per county' }, { timeout: 10_000 });
    await screen.findByRole('table', { name: /riskiest locations/ }, { timeout: 10_000 });
    const skip = screen.getByRole('link', { name: 'Skip the map to the county table' });
    skip.focus();
    await user.tab();
    const first = document.activeElement as Element;
    expect(first.classList.contains('county-present')).toBe(true);
    await user.tab();
    // One Tab and the keyboard has left the map.
    expect(map.contains(document.activeElement)).toBe(false);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(first);
    await user.keyboard('{End}');
    const last = document.activeElement as Element;
    expect(last).not.toBe(first);
    expect(last.classList.contains('county-present')).toBe(true);
    expect(last).toHaveAttribute('tabindex', '0');
    expect(first).toHaveAttribute('tabindex', '-1');
    await user.keyboard('{ArrowLeft}');
    expect(document.activeElement).not.toBe(last);
    expect(map.querySelectorAll('path[tabindex="0"]')).toHaveLength(1);
  });

  it('a county shows its tooltip when focused', async () => {
    servePortfolio();
    renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    const king = await screen.findByRole('img', { name: 'King, Washington: 3 locations' }, { timeout: 10_000 });
    king.focus();
    expect(await screen.findByRole('tooltip')).toHaveTextContent('King, Washington3 locations');
  });

  it('sorts the county table, unknown scores last', async () => {
    servePortfolio();
    const { user } = renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    const table = await screen.findByRole('table', { name: 'Locations per county' }, { timeout: 10_000 });
    const names = () => within(table).getAllByRole('rowheader').map((cell) => cell.textContent);
    expect(names()).toEqual(['King 53033', 'Capitol 09110', 'San Juan 72127']);
    await user.click(within(table).getByRole('button', { name: /Composite score/ }));
    expect(within(table).getByRole('columnheader', { name: /Composite score/ })).toHaveAttribute('aria-sort', 'descending');
    expect(names()).toEqual(['King 53033', 'Capitol 09110', 'San Juan 72127']);
    await user.click(within(table).getByRole('button', { name: /Composite score/ }));
    expect(names()).toEqual(['Capitol 09110', 'King 53033', 'San Juan 72127']);
  });

  it('a value column asks the server again and shows sums by county and rating', async () => {
    const seen: URL[] = [];
    servePortfolio(seen);
    const { user } = renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Value column' }, { timeout: 10_000 }), 'tiv');
    const value = await screen.findByRole('region', { name: 'tiv by Composite (all 18 perils) rating' });
    expect(within(value).getByText(/Total 3M from 4 row\(s\)\. 1 cell\(s\) are not numbers/)).toBeInTheDocument();
    expect(seen.at(-1)?.searchParams.get('value_column')).toBe('tiv');
    expect(screen.getByRole('radio', { name: 'Value' })).toBeChecked();
    // The county table renders after the map (issue #14): found, not got.
    const counties = await screen.findByRole('table', { name: 'Locations per county' }, { timeout: 10_000 });
    expect(within(counties).getByRole('columnheader', { name: /tiv/ })).toBeInTheDocument();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Peril' }), 'ERQK');
    await waitFor(() => expect(seen.at(-1)?.searchParams.get('peril')).toBe('ERQK'));
    expect(await screen.findByRole('heading', { name: 'Scores across the book: Earthquake' })).toBeInTheDocument();
  });

  it("another user's export or one without a detailed version shows the server's message", async () => {
    server.use(
      http.get('/api/exports/:name/portfolio', () =>
        HttpResponse.json({ status: 'error', error: 'This export has no detailed version: run the batch again.' }, { status: 404 })),
    );
    renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    expect(await screen.findByRole('alert', {}, { timeout: 10_000 })).toHaveTextContent('This export has no detailed version');
  });

  it('an empty export says so', async () => {
    server.use(
      http.get('/api/exports/:name/portfolio', () =>
        HttpResponse.json({ ...SUMMARY, headline: { ...SUMMARY.headline, rows: 0 }, counties: [], riskiest: [] })),
    );
    renderApp({ route: ROUTE, preloadedState: signedInState(ANN) });
    expect(await screen.findByText('This export has no rows.', {}, { timeout: 10_000 })).toBeInTheDocument();
  });
});

describe("the portfolio keeps FEMA's words apart from a row without a rating (#26, item 1)", () => {
  it("labels the server's 'no rating' as not scored, never FEMA's No Rating nor 'Unknown'", () => {
    expect(ratingLabel('no rating')).toBe(NOT_SCORED);
    expect(NOT_SCORED).not.toMatch(/^No Rating|Unknown/);
    for (const word of ['No Rating', 'Not Applicable', 'Insufficient Data']) expect(ratingLabel(word)).toBe(word);
  });

  it('says why locations have no score: Not Applicable, Insufficient Data, or not scored', () => {
    expect(unknownParts(6, { 'Not Applicable': 2, 'Insufficient Data': 3, 'no rating': 1, 'Very High': 4 }))
      .toEqual(['2 Not Applicable', '3 Insufficient Data', '1 not scored (not located, or no scores for the county)']);
    expect(unknownParts(1, {})).toEqual(['1 not scored (not located, or no scores for the county)']);
  });
});
