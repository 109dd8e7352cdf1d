import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import type { InitialEntry } from 'react-router-dom';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecentSearch, TractScores } from '../../api/types';
import { ANN } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { NOT_COVERED_COVERAGE, SEATTLE_COVERAGE, occupant, recentSearch, uncertainLocation } from '../../test/searchFixtures';
import { server } from '../../test/server';

/** The server's stored searches, oldest first, stepping through with previous_id/next_id. */
function storedSearches(searches: RecentSearch[], onGet?: (id: string) => void) {
  server.use(
    http.get('/api/search-results/:id', ({ params }) => {
      const id = String(params.id);
      onGet?.(id);
      const index = searches.findIndex((s) => s.search_id === id);
      if (index < 0) return HttpResponse.json({ status: 'error', error: 'Search not found' }, { status: 404 });
      return HttpResponse.json({
        status: 'success',
        search: searches[index],
        previous_id: searches[index - 1]?.search_id ?? null,
        next_id: searches[index + 1]?.search_id ?? null,
      });
    }),
  );
}

function openResult(route: InitialEntry) {
  return renderApp({ route, preloadedState: signedInState(ANN) });
}

function overviewValue(key: string) {
  const overview = screen.getByRole('region', { name: 'Address Overview' });
  return within(overview).getByText(key).nextSibling as HTMLElement;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('/search-result/{id}', () => {
  it('loads the stored search from the server without navigation state', async () => {
    storedSearches([recentSearch('a', '701 5th Ave')]);
    openResult('/search-result/a');
    expect(await screen.findByText('Loading search result...')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: '701 5th Ave' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Search List' })).toHaveAttribute('href', '/data-processing');

    expect(overviewValue('Vacancies')).toHaveTextContent(/^N\/A$/);
    expect(overviewValue('Rental Rate')).toHaveTextContent(/^N\/A$/);
    expect(overviewValue('Occupants')).toHaveTextContent(/^1$/);
    expect(overviewValue('Photos')).toHaveTextContent(/^2$/);

    const building = screen.getByRole('region', { name: 'Building Details' });
    expect(within(building).getByText('Year Built').nextSibling).toHaveTextContent('1985');
    expect(within(building).getByText('Property Type').nextSibling).toHaveTextContent('Large Office');
    expect(within(building).getByText('Floors').nextSibling).toHaveTextContent('76');

    expect(screen.getByTestId('total-score')).toHaveTextContent(/^99\.70$/);
    expect(within(screen.getByRole('list', { name: 'Top 3 Risks' })).getAllByRole('listitem').map((li) => li.textContent))
      .toEqual(['Earthquake: 99.9', 'Volcanic Activity: 98.1', 'Landslide: 97.4']);

    const receipt = screen.getByRole('region', { name: 'Score receipt' });
    expect(within(receipt).getByText('King, WA (53033)')).toBeInTheDocument();
    expect(within(receipt).getByText('1.20.0')).toBeInTheDocument();
    expect(screen.getByText("FEMA's National Risk Index is meant for planning, not for decisions about a single property.")).toBeInTheDocument();

    const occupants = screen.getByRole('table', { name: 'Occupants' });
    expect(within(occupants).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Occupant', 'Operations', 'NAICS Code']);
    expect(within(occupants).getByText('establishment, point_of_interest')).toBeInTheDocument();
    expect(within(occupants).getByText('518210').closest('td')).toHaveAttribute('title', 'Computing Infrastructure Providers');
  });

  it("shows not-applicable perils as 'N/A', never 0", async () => {
    storedSearches([recentSearch('a', '701 5th Ave')]);
    openResult('/search-result/a');
    const chart = await screen.findByTestId('peril-chart');
    const table = within(chart).getByRole('table', { name: 'Geo peril scores', hidden: true });
    const avalanche = within(table).getByRole('rowheader', { name: 'Avalanche', hidden: true }).closest('tr')!;
    expect(within(avalanche).getAllByRole('cell', { hidden: true }).map((td) => td.textContent)).toEqual(['N/A', 'Not Applicable']);
    const earthquake = within(table).getByRole('rowheader', { name: 'Earthquake', hidden: true }).closest('tr')!;
    expect(within(earthquake).getAllByRole('cell', { hidden: true })[0]).toHaveTextContent('44.0');
    expect(within(table).getAllByRole('row', { hidden: true })).toHaveLength(19);
    expect(within(chart).getByText(/Not Applicable \(the hazard does not occur here\): Avalanche\./)).toBeInTheDocument();
  });

  it("keeps FEMA's Not Applicable, Insufficient Data and No Rating apart in the caption, the axis and the table (#26, item 1)", async () => {
    const base = recentSearch('a', '1 Calle Fortaleza');
    const perils = { ...base.result_data!.perils, ERQK_Score: null, HRCN_Score: null, TRND_Score: 0 };
    const ratings = { AVLN: 'Not Applicable', ERQK: 'Insufficient Data', HRCN: 'Insufficient Data', TRND: 'No Rating', Total: 'Very High' };
    storedSearches([recentSearch('a', '1 Calle Fortaleza', { perils, ratings })]);
    openResult('/search-result/a');
    const chart = await screen.findByTestId('peril-chart');
    const caption = chart.querySelector('figcaption')!;
    expect(caption).toHaveTextContent('Not Applicable (the hazard does not occur here): Avalanche.');
    expect(caption).toHaveTextContent('Insufficient Data (FEMA has too little data to estimate it): Earthquake, Hurricane.');
    expect(caption).toHaveTextContent('No Rating (FEMA rates it 0): Tornado.');
    // Insufficient Data is never called not applicable.
    expect(caption.textContent).not.toMatch(/Not Applicable[^.]*Earthquake/);
    const table = within(chart).getByRole('table', { name: 'Geo peril scores', hidden: true });
    const cells = (name: string) => within(within(table).getByRole('rowheader', { name, hidden: true }).closest('tr')!)
      .getAllByRole('cell', { hidden: true }).map((td) => td.textContent);
    expect(cells('Avalanche')).toEqual(['N/A', 'Not Applicable']);
    expect(cells('Earthquake')).toEqual(['—', 'Insufficient Data']);
    expect(cells('Hurricane')).toEqual(['—', 'Insufficient Data']);
    expect(cells('Tornado')).toEqual(['0.0', 'No Rating']);
    const ticks = [...chart.querySelectorAll('.recharts-cartesian-axis-tick-value')].map((t) => t.textContent);
    expect(ticks).toContain('Avalanche (N/A)');
    expect(ticks).toContain('Earthquake (no data)');
    expect(ticks).toContain('Tornado (no rating)');
  });

  it("where no occupant source covers the address, occupants, photos and alerts read 'Not covered', the coverage is said once and Last Update leaves out the occupants' date (#26, item 2)", async () => {
    storedSearches([recentSearch('m', '100 Biscayne Blvd', {
      total_results: null, occupants: [], types: [], extra_info: { photos: [], rating: null }, occupant_coverage: NOT_COVERED_COVERAGE,
    })]);
    openResult('/search-result/m');
    await screen.findByRole('heading', { level: 1, name: '100 Biscayne Blvd' });
    for (const key of ['Occupants', 'Photos', 'Operation alerts']) expect(overviewValue(key)).toHaveTextContent(/^Not covered$/);
    expect(screen.getAllByText(NOT_COVERED_COVERAGE.covers)).toHaveLength(1);
    expect(overviewValue('Last Update')).toHaveTextContent(/^NRI 2025-12$/);
    expect(screen.queryByRole('table', { name: 'Occupants' })).not.toBeInTheDocument();
    expect(screen.getByText(/^Not covered: no occupant data covers this address/)).toBeInTheDocument();
    expect(screen.queryByText('No occupants on record at this address.')).not.toBeInTheDocument();
  });

  it("a covered address with none found reads 0, its photos 'Not available' when the source gives none (#26, item 2)", async () => {
    storedSearches([recentSearch('s', '1 Empty Lot', {
      total_results: 0, occupants: [], extra_info: { photos: [], rating: null }, occupant_coverage: { ...SEATTLE_COVERAGE, photos: false },
    })]);
    openResult('/search-result/s');
    await screen.findByRole('heading', { level: 1, name: '1 Empty Lot' });
    expect(overviewValue('Occupants')).toHaveTextContent(/^0$/);
    expect(overviewValue('Photos')).toHaveTextContent(/^Not available$/);
    expect(overviewValue('Operation alerts')).toHaveTextContent(/^0$/);
    expect(overviewValue('Last Update')).toHaveTextContent(/^Occupants 2026-08-02 · NRI 2025-12$/);
    expect(screen.getByText('No occupants on record at this address.')).toBeInTheDocument();
  });

  it('disables Previous at the oldest search and Next goes to the next one', async () => {
    storedSearches([recentSearch('a', '1 Oldest St'), recentSearch('b', '2 Newest St')]);
    const { user } = openResult('/search-result/a');
    await screen.findByRole('heading', { level: 1, name: '1 Oldest St' });
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/search-result/b'));
    expect(await screen.findByRole('heading', { level: 1, name: '2 Newest St' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Previous' }));
    expect(await screen.findByRole('heading', { level: 1, name: '1 Oldest St' })).toBeInTheDocument();
  });

  it('renders navigation state for its id at once, then the stored search', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const stored = recentSearch('a', '701 5th Ave');
    server.use(http.get('/api/search-results/:id', async () => {
      await gate;
      return HttpResponse.json({ status: 'success', search: stored, previous_id: null, next_id: null });
    }));
    const state = {
      id: 'a', address: '701 5th Ave (from the card)', vacancies: null, photosCount: 2, dateLastUpdated: '11/20/2026',
      imageUrl: null, occupantDetails: stored.filtered_results, totalScore: 99.7,
      top3ScoresCombined: 'Earthquake: 99.9\nVolcanic Activity: 98.1\nLandslide: 97.4', naics_code: '518210',
    };
    openResult({ pathname: '/search-result/a', state });
    expect(await screen.findByRole('heading', { level: 1, name: '701 5th Ave (from the card)' })).toBeInTheDocument();
    expect(screen.getByText('Loading search result...')).toBeInTheDocument();
    expect(screen.getByTestId('total-score')).toHaveTextContent('99.70');
    expect(within(screen.getByRole('table', { name: 'Occupants' })).getByText('ACME INC')).toBeInTheDocument();
    release();
    expect(await screen.findByRole('heading', { level: 1, name: '701 5th Ave' })).toBeInTheDocument();
    expect(screen.queryByText('Loading search result...')).not.toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Score receipt' })).getByText('King, WA (53033)')).toBeInTheDocument();
  });

  it("ignores navigation state for another id", async () => {
    server.use(http.get('/api/search-results/:id', () => delay('infinite')));
    openResult({ pathname: '/search-result/a', state: { id: 'other', address: 'Somewhere Else' } });
    expect(await screen.findByText('Loading search result...')).toBeInTheDocument();
    expect(screen.queryByText('Somewhere Else')).not.toBeInTheDocument();
  });

  it("says 'No search result ID provided.' with Go Back when the route has no id", async () => {
    const { user } = openResult('/search-result');
    expect(await screen.findByRole('alert')).toHaveTextContent('No search result ID provided.');
    await user.click(screen.getByRole('button', { name: 'Go Back' }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/data-processing'));
  });

  it("says 'Could not load result data.' on a 404", async () => {
    storedSearches([]);
    openResult('/search-result/missing');
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not load result data.');
    expect(screen.getByRole('button', { name: 'Go Back' })).toBeInTheDocument();
  });

  it("says 'Failed to load search result details.' on other failures", async () => {
    server.use(http.get('/api/search-results/:id', () => HttpResponse.json({ status: 'error', error: 'boom' }, { status: 500 })));
    openResult('/search-result/a');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load search result details.');
  });

  it('Refresh loads the search again from the server', async () => {
    let gets = 0;
    storedSearches([recentSearch('a', '701 5th Ave')], () => { gets += 1; });
    const { user } = openResult('/search-result/a');
    await screen.findByRole('heading', { level: 1, name: '701 5th Ave' });
    expect(gets).toBe(1);
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(gets).toBe(2));
    expect(await screen.findByRole('button', { name: 'Refresh' })).toBeEnabled();
  });

  it('Export downloads the CSV with the bearer token', async () => {
    let auth: string | null = null;
    storedSearches([recentSearch('a', '701 5th Ave')]);
    server.use(http.get('/api/search-results/:id/export', ({ request }) => {
      auth = request.headers.get('Authorization');
      return new HttpResponse('address,name\n701 5th Ave,ACME INC\n', {
        headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="perilscope-701-5th-ave.csv"' },
      });
    }));
    const createObjectURL = vi.fn(() => 'blob:csv');
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    const { user } = openResult('/search-result/a');
    await user.click(await screen.findByRole('button', { name: 'Export' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(auth).toMatch(/^Bearer seed-/);
    expect(clicked[0]!.download).toBe('perilscope-701-5th-ave.csv');
    expect(clicked[0]!.href).toBe('blob:csv');
    expect(createObjectURL).toHaveBeenCalledTimes(1);
  });

  it("shows 'Export error: ...' when the export fails", async () => {
    storedSearches([recentSearch('a', '701 5th Ave')]);
    server.use(http.get('/api/search-results/:id/export', () =>
      HttpResponse.json({ status: 'error', error: 'Search not found' }, { status: 404 })));
    const { user } = openResult('/search-result/a');
    await user.click(await screen.findByRole('button', { name: 'Export' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Export error: Search not found');
  });

  it('shows where the answer was located, how, and how sure', async () => {
    storedSearches([recentSearch('a', '701 5th Ave')]);
    openResult('/search-result/a');
    const location = await screen.findByRole('region', { name: 'Location' });
    const value = (key: string) => within(location).getByText(key).nextSibling as HTMLElement;
    expect(value('County')).toHaveTextContent('King, WA (53033)');
    expect(value('Located by')).toHaveTextContent('ZIP code in one county');
    expect(value('Confidence')).toHaveTextContent('100%');
    expect(value('Point matched')).toHaveTextContent('The building itself');
    expect(value('Census tract')).toHaveTextContent('53033008100');
    expect(screen.queryByTestId('county-uncertain')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Other possible counties/ })).not.toBeInTheDocument();
  });

  it('marks a low-confidence county and opens its alternatives with one click', async () => {
    storedSearches([recentSearch('a', '3620 Howell Ferry Rd', { location: uncertainLocation() })]);
    const { user } = openResult('/search-result/a');
    const risk = await screen.findByRole('region', { name: 'Risk Analysis' });
    const warning = within(risk).getByRole('note', { name: 'County uncertain' });
    expect(within(warning).getByTestId('county-uncertain')).toHaveTextContent('County uncertain');
    expect(warning).toHaveTextContent('These scores are for Gwinnett, GA (13135), but the address may be in another county.');

    const location = screen.getByRole('region', { name: 'Location' });
    expect(within(location).getByText('Located by').nextSibling).toHaveTextContent("Where most of the ZIP code's addresses are");
    expect(within(location).getByText('Confidence').nextSibling).toHaveTextContent('62%');
    expect(within(location).getByText('ZIP code 30097 spans 3 counties; most of its addresses are in Gwinnett County.')).toBeInTheDocument();

    const disclosure = within(warning).getByRole('button', { name: 'Other possible counties (2)' });
    expect(disclosure).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('table', { name: 'Other possible counties' })).not.toBeInTheDocument();
    await user.click(disclosure);
    expect(disclosure).toHaveAttribute('aria-expanded', 'true');
    const table = screen.getByRole('table', { name: 'Other possible counties' });
    const rows = within(table).getAllByRole('row').slice(1).map((row) =>
      [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Fulton, GA (13121)', '38%', '87.50', 'Relatively High'],
      ['Forsyth, GA (13117)', '<1%', 'N/A', 'N/A'],
    ]);
    disclosure.focus();
    await user.keyboard('{Enter}');
    expect(disclosure).toHaveAttribute('aria-expanded', 'false');
  });

  it('Last Update is the date of the data, the search time is Searched; NAICS is the most common sector', async () => {
    const occupants = [
      occupant({ name: 'A', naics_code: '541511' }), occupant({ name: 'B', naics_code: '541330' }),
      occupant({ name: 'C', naics_code: '722511', business_status: 'CLOSED_TEMPORARILY' }),
      occupant({ name: 'D', naics_code: 'N/A', business_status: 'CLOSED_PERMANENTLY' }),
    ];
    storedSearches([recentSearch('a', '701 5th Ave', { occupants, total_results: 4 })]);
    openResult('/search-result/a');
    await screen.findByRole('heading', { level: 1, name: '701 5th Ave' });
    expect(overviewValue('Last Update')).toHaveTextContent(/^Occupants 2026-08-02 · NRI 2025-12$/);
    expect(overviewValue('Searched')).toHaveTextContent(new Date('2026-11-20T10:00:00Z').toLocaleDateString());
    expect(overviewValue('NAICS')).toHaveTextContent(/^Most common: 54 Professional, Scientific, and Technical Services \(2 of 4\)$/);
    expect(overviewValue('Operation alerts')).toHaveTextContent(/^2$/);
  });

  it('a stored answer without data dates says N/A, never today', async () => {
    const old = recentSearch('a', '701 5th Ave');
    delete old.result_data!.receipt.datasets;
    storedSearches([old]);
    openResult('/search-result/a');
    await screen.findByRole('heading', { level: 1, name: '701 5th Ave' });
    expect(overviewValue('Last Update')).toHaveTextContent(/^N\/A$/);
  });

  it('names RFLD as NRI inland flooding in the peril table', async () => {
    storedSearches([recentSearch('a', '701 5th Ave')]);
    openResult('/search-result/a');
    const chart = await screen.findByTestId('peril-chart');
    expect(within(chart).getByRole('rowheader', { name: 'Riverine Flooding (NRI inland flooding, IFLD)', hidden: true })).toBeInTheDocument();
  });

  it('a null composite score shows N/A, never 0', async () => {
    storedSearches([recentSearch('a', '701 5th Ave', { Total_Score: null })]);
    openResult('/search-result/a');
    expect(await screen.findByTestId('total-score')).toHaveTextContent(/^N\/A$/);
  });

  it('a receipt served from an earlier answer says so, with its age limit', async () => {
    const cached = recentSearch('a', '701 5th Ave');
    Object.assign(cached.result_data!.receipt, { from_cache: true, cache_max_age_hours: 24 });
    storedSearches([cached]);
    openResult('/search-result/a');
    const receipt = await screen.findByRole('region', { name: 'Score receipt' });
    expect(within(receipt).getByText('Served from').nextSibling).toHaveTextContent('An earlier answer (at most 24 h old)');
    expect(within(receipt).getByRole('table', { name: 'Datasets' })).toHaveTextContent('NRI v1.20.0 (December 2025)');
  });
  it('shows the census tract scores beside the county scores, with each release and the note when they differ', async () => {
    const perils = { ERQK_Score: 88.1, AVLN_Score: null, Total_Score: 61.5 };
    const tract: TractScores = {
      geography_level: 'tract', tract_geoid: '53033008100', county_fips: '53033', nri_version: '1.19.0 (March 2023)',
      tract_from: 'geocoder', perils, ratings: { ERQK: 'Very High', AVLN: 'Not Applicable', Total: 'Relatively High' },
      Total_Score: 61.5, Top3_Scores_Combined: 'Earthquake: 88.1',
      notes: ['The census-tract scores are from NRI 1.19.0 (March 2023) and the county scores from NRI 1.20.0 (December 2025): different releases.'],
      about: 'Census-tract scores rank the tract among all US tracts.',
    };
    const search = recentSearch('a', '701 5th Ave', { tract });
    search.result_data!.receipt.score_geographies = [
      { geography_level: 'county', geoid: '53033', nri_version: '1.20.0' },
      { geography_level: 'tract', geoid: '53033008100', nri_version: '1.19.0 (March 2023)' },
    ];
    storedSearches([search]);
    openResult('/search-result/a');
    const panel = await screen.findByRole('region', { name: 'Census tract' });
    expect(screen.getByTestId('total-score')).toHaveTextContent(/^99\.70$/);
    expect(within(panel).getByTestId('tract-total-score')).toHaveTextContent(/^61\.50$/);
    expect(within(panel).getByText('NRI version').nextSibling).toHaveTextContent('1.19.0 (March 2023)');
    expect(within(panel).getByRole('status')).toHaveTextContent('different releases');
    const scores = within(panel).getByRole('table', { name: 'Census tract scores', hidden: true });
    const avalanche = within(scores).getByRole('rowheader', { name: 'Avalanche', hidden: true }).closest('tr')!;
    expect(avalanche).toHaveTextContent(/^AvalancheN\/ANot Applicable$/);
    const receipt = screen.getByRole('region', { name: 'Score receipt' });
    expect(within(receipt).getByText('Also scored: tract').nextSibling).toHaveTextContent('53033008100, NRI 1.19.0 (March 2023)');
  });

  it('shows no census tract panel when the answer has no tract scores', async () => {
    storedSearches([recentSearch('a', '701 5th Ave')]);
    openResult('/search-result/a');
    await screen.findByRole('region', { name: 'Score receipt' });
    expect(screen.queryByRole('region', { name: 'Census tract' })).not.toBeInTheDocument();
  });
});
