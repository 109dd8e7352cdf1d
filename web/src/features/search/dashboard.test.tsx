import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecentSearch } from '../../api/types';
import { ANN, callCount, db } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import {
  NOT_COVERED_COVERAGE, SEATTLE_COVERAGE, batchSearch, failedSearch, occupant, recentSearch, uncertainLocation,
} from '../../test/searchFixtures';
import { server } from '../../test/server';

const SEATTLE = '701 5th Ave, Seattle, WA 98104';
const LIMIT_MESSAGE =
  'You have reached your monthly search limit (10 searches/month). Please contact an administrator to upgrade your account.';

const err = (status: number, error: string) => HttpResponse.json({ status: 'error', error }, { status });

/** The server's recent searches, newest first; a successful lookup puts its search on top. */
function useSearchServer(initial: RecentSearch[] = [], answer?: (address: string) => Response | Promise<Response>) {
  let searches = [...initial];
  server.use(
    http.get('/api/recent-searches', () => HttpResponse.json({ status: 'success', searches })),
    http.get('/api/nearby-search', async ({ request }) => {
      db.calls['/api/nearby-search'] = (db.calls['/api/nearby-search'] ?? 0) + 1;
      const address = new URL(request.url).searchParams.get('address') ?? '';
      if (answer) return answer(address);
      const stored = recentSearch('new', address.split(',')[0] ?? address);
      searches = [stored, ...searches];
      return HttpResponse.json({ status: 'success', search_id: 'new', data: stored.filtered_results, result: stored.result_data });
    }),
    http.post('/api/upload-csv', () =>
      HttpResponse.json({ status: 'success', file_id: 'file-1', file_path: 'uploads/addresses.csv', rows: 2 }),
    ),
  );
}

function openDashboard() {
  return renderApp({ route: '/data-processing', preloadedState: signedInState(ANN) });
}

function actionButton() {
  return screen.getByRole('button', { name: /^(Search|Search Address|Process Batch File|Processing\.\.\.|Monthly search limit reached)$/ });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the one action button', () => {
  it("reads 'Search', 'Search Address', 'Process Batch File'; a file clears the address and typing clears the file", async () => {
    useSearchServer();
    const { user } = openDashboard();
    await screen.findByText(/No searches yet/);
    expect(actionButton()).toHaveTextContent(/^Search$/);

    const input = screen.getByLabelText('Property address');
    await user.type(input, '1 Main St');
    expect(actionButton()).toHaveTextContent(/^Search Address$/);
    await user.clear(input);
    expect(actionButton()).toHaveTextContent(/^Search$/);

    await user.type(input, '1 Main St');
    await user.upload(screen.getByLabelText('Choose CSV file'), new File(['Street Address,City,State,Zip,Country\n'], 'addresses.csv', { type: 'text/csv' }));
    expect(await screen.findByText('File uploaded successfully: addresses.csv')).toBeInTheDocument();
    expect(input).toHaveValue('');
    expect(screen.getByText('addresses.csv')).toBeInTheDocument();
    expect(actionButton()).toHaveTextContent(/^Process Batch File$/);

    await user.type(input, '2');
    expect(screen.queryByText('addresses.csv')).not.toBeInTheDocument();
    expect(screen.queryByText(/File uploaded successfully/)).not.toBeInTheDocument();
    expect(actionButton()).toHaveTextContent(/^Search Address$/);
  });

  it("reads 'Processing...' while the search runs; Enter in the input submits", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => { release = resolve; });
    useSearchServer([], async (address) => {
      await gate;
      const stored = recentSearch('new', address);
      return HttpResponse.json({ status: 'success', search_id: 'new', data: stored.filtered_results, result: stored.result_data });
    });
    const { user } = openDashboard();
    await user.type(await screen.findByLabelText('Property address'), `${SEATTLE}{Enter}`);
    expect(await screen.findByRole('button', { name: 'Processing...' })).toBeDisabled();
    release();
    expect(await screen.findByRole('button', { name: 'Search Address' })).toBeEnabled();
  });

  it("is 'Monthly search limit reached' and disabled at 0 remaining for a regular user", async () => {
    db.stats = { ...db.stats, current_month_searches: 10, search_limit: 10, remaining_searches: 0, total_searches: 10, last_search_date: null };
    useSearchServer();
    const { user } = openDashboard();
    const button = await screen.findByRole('button', { name: 'Monthly search limit reached' });
    expect(button).toBeDisabled();
    await user.type(screen.getByLabelText('Property address'), `${SEATTLE}{Enter}`);
    expect(callCount('/api/nearby-search')).toBe(0);
  });

  it('shows the address help tooltip', async () => {
    useSearchServer();
    const { user } = openDashboard();
    await user.click(await screen.findByRole('button', { name: 'Address help' }));
    expect(screen.getByRole('tooltip')).toHaveTextContent('street, city, state, ZIP');
    expect(screen.getByRole('tooltip')).toHaveTextContent('701 5th Ave, Seattle, WA 98104');
  });
});

describe('single search messages (SPEC §8)', () => {
  const cases: [string, () => Response, string][] = [
    ['504', () => err(504, 'gateway'), 'Server gateway timeout. The search is taking longer than expected...'],
    ['503', () => err(503, 'busy'), 'Service temporarily unavailable. Please try again in a few minutes.'],
    ['500', () => err(500, 'boom'), 'Server error occurred. Please try again or contact support if this persists.'],
    ['502', () => new HttpResponse('Bad gateway', { status: 502 }), 'Server error occurred. Please try again or contact support if this persists.'],
    [
      '400',
      () => err(400, 'Could not find a ZIP code in "Main St". Enter the full address: street, city, state, ZIP.'),
      'Search error: Could not find a ZIP code in "Main St". Enter the full address: street, city, state, ZIP.',
    ],
    // No answer at all (offline, DNS, the server down): what happened and what to do, never 'TypeError: Failed to fetch'.
    ['network failure', () => HttpResponse.error(), 'Search error: Could not reach PerilScope. Check your connection and try again.'],
  ];

  it.each(cases)('%s gives its message', async (_status, answer, message) => {
    useSearchServer([], answer);
    const { user } = openDashboard();
    await user.type(await screen.findByLabelText('Property address'), 'Main St');
    await user.click(screen.getByRole('button', { name: 'Search Address' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(message);
    expect(alert).not.toHaveTextContent(/TypeError|Failed to fetch/);
  });

  it('the monthly limit gives the limit message and reloads the statistics', async () => {
    useSearchServer([], () => {
      db.stats = { ...db.stats, current_month_searches: 10, search_limit: 10, remaining_searches: 0, total_searches: 10, last_search_date: null };
      return HttpResponse.json(
        { status: 'error', error: 'Monthly search limit reached', code: 'quota_exceeded', details: { limit: 10 } },
        { status: 429 },
      );
    });
    const { user } = openDashboard();
    await user.type(await screen.findByLabelText('Property address'), SEATTLE);
    await user.click(screen.getByRole('button', { name: 'Search Address' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(LIMIT_MESSAGE);
    expect(await screen.findByRole('button', { name: 'Monthly search limit reached' })).toBeDisabled();
    expect(screen.getByTestId('searches-used')).toHaveTextContent('10 / 10');
  });

  it('a search that takes longer than 180000 ms times out', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    useSearchServer([], async () => {
      await delay('infinite');
      return HttpResponse.json({});
    });
    const { user } = openDashboard();
    await user.type(await screen.findByLabelText('Property address'), SEATTLE);
    await user.click(screen.getByRole('button', { name: 'Search Address' }));
    await screen.findByRole('button', { name: 'Processing...' });
    await act(async () => {
      vi.advanceTimersByTime(179_000);
    });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await act(async () => {
      vi.advanceTimersByTime(1_500);
    });
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Search request timed out. The server may be busy processing your request. Please try again in a few minutes.',
    );
  });

  it("an empty address asks for one without calling the server", async () => {
    useSearchServer();
    const { user } = openDashboard();
    await user.type(await screen.findByLabelText('Property address'), '   {Enter}');
    expect(await screen.findByText('Please enter an address for single search')).toBeInTheDocument();
    expect(callCount('/api/nearby-search')).toBe(0);
  });
});

describe('the keyboard (#26, item 8)', () => {
  it("tabs from the address field to the visible 'Choose CSV file' button, never to the hidden file input, and the button opens the picker", async () => {
    useSearchServer();
    const { user } = openDashboard();
    await screen.findByText(/No searches yet/);
    const address = screen.getByLabelText('Property address');
    address.focus();
    await user.tab();
    const choose = screen.getByRole('button', { name: 'Choose CSV file' });
    expect(choose).toHaveFocus();
    expect(choose).toHaveClass('btn');
    const input = screen.getByLabelText('Choose CSV file');
    expect(input).toHaveAttribute('type', 'file');
    expect(input).toHaveAttribute('tabindex', '-1');
    expect(input).toHaveAttribute('aria-hidden', 'true');
    const opened = vi.spyOn(input, 'click');
    await user.keyboard('{Enter}');
    expect(opened).toHaveBeenCalled();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Search' })).toHaveFocus();
  });
});

describe('after a search', () => {
  /** A lookup whose answer is `stored`; the recent list then holds it. */
  async function lookUp(stored: RecentSearch) {
    useSearchServer([], () =>
      HttpResponse.json({ status: 'success', search_id: 'new', data: stored.filtered_results, result: stored.result_data }));
    let served: RecentSearch[] = [];
    server.use(http.get('/api/recent-searches', () => HttpResponse.json({ status: 'success', searches: served })));
    const { user } = openDashboard();
    expect(await screen.findByText('No searches yet. Look up an address to see its occupants and risks.')).toBeInTheDocument();
    served = [stored];
    await user.type(screen.getByLabelText('Property address'), '100 Biscayne Blvd, Miami, FL 33132');
    await user.click(screen.getByRole('button', { name: 'Search Address' }));
  }

  it("warns 'No results found for this address' only when nothing at all was found (#26, item 3)", async () => {
    const perils = Object.fromEntries(Object.keys(recentSearch('x', 'x').result_data!.perils).map((k) => [k, null]));
    await lookUp(recentSearch('new', '1 Nowhere Rd', {
      total_results: null, occupants: [], perils, Total_Score: null, Top3_Scores_Combined: '', occupant_coverage: NOT_COVERED_COVERAGE,
    }));
    const warning = await screen.findByText('No results found for this address');
    expect(warning.closest('.banner')).toHaveClass('banner-warning');
  });

  it("a county FEMA rates Insufficient Data overall (San Juan) is found, not 'No results' (#26, items 1 and 3)", async () => {
    const perils = Object.fromEntries(Object.keys(recentSearch('x', 'x').result_data!.perils).map((k) => [k, null]));
    await lookUp(recentSearch('new', '1 Calle Fortaleza', {
      total_results: null, occupants: [], perils, Total_Score: null, Top3_Scores_Combined: '', occupant_coverage: NOT_COVERED_COVERAGE,
      ratings: { AVLN: 'Not Applicable', ERQK: 'Insufficient Data', HRCN: 'Insufficient Data', Total: 'Insufficient Data' },
    }));
    const message = await screen.findByText('County found; FEMA has too little data to score it (Insufficient Data). No occupant data covers this address.');
    expect(message.closest('.banner')).toHaveClass('banner-warning');
    expect(screen.queryByText('No results found for this address')).not.toBeInTheDocument();
  });

  it('scores found where no occupant data covers the address: says so, never "No results" (#26, items 2 and 3)', async () => {
    await lookUp(recentSearch('new', '100 Biscayne Blvd', {
      total_results: null, occupants: [], types: [], extra_info: { photos: [], rating: null }, occupant_coverage: NOT_COVERED_COVERAGE,
    }));
    const message = await screen.findByText('Risk scores found; no occupant data covers this address.');
    expect(message.closest('.banner')).not.toHaveClass('banner-warning');
    expect(screen.queryByText('No results found for this address')).not.toBeInTheDocument();
    expect(await screen.findByText('Latest Result')).toBeInTheDocument();
    expect(await screen.findByTestId('peril-chart')).toBeInTheDocument();
    // The card: unknown counts read 'Not covered', never 0; the occupants' date is left out; coverage said once.
    const card = screen.getByRole('link', { name: /100 Biscayne Blvd/ });
    for (const key of ['Occupants', 'Photos', 'Operation alerts']) {
      expect(within(card).getByText(key).nextSibling).toHaveTextContent(/^Not covered$/);
    }
    // Its sectors are unknown too: never 'None'.
    expect(within(card).getByText('NAICS').nextSibling).toHaveTextContent(/^Not covered$/);
    expect(within(card).getByText('Last Update').nextSibling).toHaveTextContent(/^NRI 2025-12$/);
    expect(screen.getAllByText(NOT_COVERED_COVERAGE.covers)).toHaveLength(1);
    expect(screen.getByText(/^Not covered: no occupant data covers this address/)).toBeInTheDocument();
  });

  it('scores found at a covered address where no business is registered: says so, and the counts are 0 (#26, items 2 and 3)', async () => {
    await lookUp(recentSearch('new', '1 Empty Lot', {
      total_results: 0, occupants: [], types: [], extra_info: { photos: [], rating: null }, occupant_coverage: { ...SEATTLE_COVERAGE, photos: false },
    }));
    expect(await screen.findByText('Risk scores found; no businesses are registered at this address.')).toBeInTheDocument();
    expect(screen.queryByText('No results found for this address')).not.toBeInTheDocument();
    const card = await screen.findByRole('link', { name: /1 Empty Lot/ });
    expect(within(card).getByText('Occupants').nextSibling).toHaveTextContent(/^0$/);
    expect(within(card).getByText('Photos').nextSibling).toHaveTextContent(/^Not available$/);
    expect(within(card).getByText('Operation alerts').nextSibling).toHaveTextContent(/^0$/);
  });

  it('reloads recent searches and statistics; the new search is the Latest Result with occupants and chart', async () => {
    useSearchServer([recentSearch('old', '100 Biscayne Blvd')]);
    const { user } = openDashboard();
    const latestBefore = await screen.findByRole('link', { name: /100 Biscayne Blvd/ });
    expect(latestBefore).toBeInTheDocument();
    const statsCalls = callCount('/api/auth/get-search-stats');
    await user.type(screen.getByLabelText('Property address'), SEATTLE);
    await user.click(screen.getByRole('button', { name: 'Search Address' }));
    expect(await screen.findByText(`Found 1 occupant(s) at ${SEATTLE}`)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('link', { name: /^701 5th Ave/ })).toHaveClass('result-card-latest'));
    expect(callCount('/api/auth/get-search-stats')).toBeGreaterThan(statsCalls);
    const occupants = screen.getByRole('table', { name: 'Occupants' });
    expect(within(occupants).getByText('ACME INC')).toBeInTheDocument();
    expect(within(occupants).getByText('518210')).toBeInTheDocument();
    expect(await screen.findByTestId('peril-chart')).toBeInTheDocument();
    const earlier = screen.getByRole('list', { name: 'Earlier searches' });
    expect(within(earlier).getByRole('link', { name: /100 Biscayne Blvd/ })).toBeInTheDocument();
  });
});

describe('Recent Single Searches', () => {
  it("shows the first non-CSV search as the Latest Result and lists the others without '.csv' items", async () => {
    useSearchServer([
      batchSearch('batch', 'seattle_addresses.csv'),
      recentSearch('b', '2 Latest St'),
      recentSearch('a', '1 Older St'),
      batchSearch('batch2', 'old.csv'),
      recentSearch('z', '0 Oldest St'),
    ]);
    openDashboard();
    const latest = await screen.findByRole('link', { name: /2 Latest St/ });
    expect(latest).toHaveClass('result-card-latest');
    const list = screen.getByRole('list', { name: 'Earlier searches' });
    const items = within(list).getAllByRole('link');
    expect(items.map((link) => link.querySelector('.result-card-address')?.textContent)).toEqual(['1 Older St', '0 Oldest St']);
    expect(screen.queryByText(/\.csv/)).not.toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: /2 Latest St/ })).toHaveLength(1);
  });

  it('a card shows its facts, the score to 2 decimals only above 0, and warning flags', async () => {
    const zero = recentSearch('zero', '5 Zero St', { Total_Score: 0 });
    const closed = recentSearch('closed', '6 Closed St');
    closed.filtered_results = [occupant({ business_status: 'CLOSED_PERMANENTLY' })];
    useSearchServer([recentSearch('top', '701 5th Ave'), zero, closed, failedSearch('failed', '9 Bad Address')]);
    openDashboard();
    const top = await screen.findByRole('link', { name: /^701 5th Ave/ });
    expect(within(top).getByText('Total score').nextSibling).toHaveTextContent('99.70');
    expect(within(top).getByText('Vacancies').nextSibling).toHaveTextContent('N/A');
    expect(within(top).getByText('Photos').nextSibling).toHaveTextContent('2');
    expect(within(top).getByText('Operation alerts').nextSibling).toHaveTextContent(/^0$/);
    expect(within(top).getByText('NAICS').nextSibling).toHaveTextContent(/^Most common: 51 Information \(1 of 1\)$/);
    expect(within(top).getByText('Last Update').nextSibling).toHaveTextContent(/^Occupants 2026-08-02 · NRI 2025-12$/);
    expect(within(top).getByText(`Searched ${new Date('2026-11-20T10:00:00Z').toLocaleDateString()}`)).toBeInTheDocument();
    expect(within(top).getByText(/Earthquake: 99.9/)).toBeInTheDocument();
    expect(within(top).queryByTestId('card-warning')).not.toBeInTheDocument();

    const list = screen.getByRole('list', { name: 'Earlier searches' });
    const zeroCard = within(list).getByRole('link', { name: /5 Zero St/ });
    expect(within(zeroCard).queryByText('Total score')).not.toBeInTheDocument();
    expect(within(within(list).getByRole('link', { name: /6 Closed St/ })).getByTestId('card-warning')).toHaveTextContent('Closed permanently');
    const failed = within(list).getByRole('link', { name: /Search Failed/ });
    expect(failed).toHaveClass('result-card-warning');
    expect(within(failed).getByText('Error')).toBeInTheDocument();
  });

  it("marks low-confidence answers 'County uncertain' on the Latest Result and the recent list", async () => {
    useSearchServer([
      recentSearch('new', '3620 Howell Ferry Rd', { location: uncertainLocation() }),
      recentSearch('sure', '701 5th Ave'),
      recentSearch('old', '1 Peachtree St', { location: uncertainLocation() }),
    ]);
    openDashboard();
    const latest = await screen.findByRole('link', { name: /3620 Howell Ferry Rd/ });
    expect(within(latest).getByTestId('county-uncertain')).toHaveTextContent('County uncertain');
    const list = screen.getByRole('list', { name: 'Earlier searches' });
    expect(within(within(list).getByRole('link', { name: /1 Peachtree St/ })).getByTestId('county-uncertain')).toBeInTheDocument();
    expect(within(within(list).getByRole('link', { name: /701 5th Ave/ })).queryByTestId('county-uncertain')).not.toBeInTheDocument();
  });

  it('operation alerts count the occupants closed permanently or temporarily', async () => {
    const search = recentSearch('a', '701 5th Ave');
    search.filtered_results = [
      occupant({ business_status: 'CLOSED_TEMPORARILY' }), occupant({ business_status: 'CLOSED_PERMANENTLY' }),
      occupant({ business_status: 'CLOSED_TEMPORARILY' }), occupant({ business_status: 'OPERATIONAL' }),
      occupant({ business_status: 'NA' }),
    ];
    useSearchServer([search]);
    openDashboard();
    const card = await screen.findByRole('link', { name: /^701 5th Ave/ });
    expect(within(card).getByText('Operation alerts').nextSibling).toHaveTextContent(/^3$/); // not the 2 types of the first
  });

  it('a card links to /search-result/{id} with the navigation state', async () => {
    useSearchServer([recentSearch('abc', '701 5th Ave')]);
    server.use(http.get('/api/search-results/:id', () => delay('infinite')));
    const { user } = openDashboard();
    await user.click(await screen.findByRole('link', { name: /^701 5th Ave/ }));
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/search-result/abc'));
    const state = JSON.parse(screen.getByTestId('location').getAttribute('data-state') ?? 'null');
    expect(state).toMatchObject({
      id: 'abc', address: '701 5th Ave', vacancies: null, photosCount: 2, totalScore: 99.7,
      top3ScoresCombined: 'Earthquake: 99.9\nVolcanic Activity: 98.1\nLandslide: 97.4', naics_code: '518210',
      imageUrl: '/api/place-photo?ref=ref-1&maxwidth=400',
    });
    expect(state.occupantDetails[0].name).toBe('ACME INC');
    expect(typeof state.dateLastUpdated).toBe('string');
  });

  it('shows a loading skeleton, then the empty state', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => { release = resolve; });
    server.use(http.get('/api/recent-searches', async () => {
      await gate;
      return HttpResponse.json({ status: 'success', searches: [] });
    }));
    openDashboard();
    expect(await screen.findByRole('status', { name: 'Loading recent searches...' })).toBeInTheDocument();
    release();
    expect(await screen.findByText('No searches yet. Look up an address to see its occupants and risks.')).toBeInTheDocument();
    expect(screen.queryByRole('status', { name: 'Loading recent searches...' })).not.toBeInTheDocument();
  });

  it('reloads the lists when the dashboard is entered again', async () => {
    useSearchServer();
    let calls = 0;
    server.use(http.get('/api/recent-searches', () => {
      calls += 1;
      return HttpResponse.json({ status: 'success', searches: [] });
    }));
    const { user } = openDashboard();
    await screen.findByText(/No searches yet/);
    expect(calls).toBe(1);
    await user.click(screen.getAllByRole('link', { name: 'Home' })[0]!);
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/));
    await user.click(screen.getAllByRole('link', { name: 'Dashboard' })[0]!);
    await screen.findByText(/No searches yet/);
    await waitFor(() => expect(calls).toBe(2));
  });
});

describe('a list that failed to load never also says it is empty', () => {
  it('recent searches: the error, not "No searches yet"', async () => {
    server.use(http.get('/api/recent-searches', () => HttpResponse.error()));
    openDashboard();
    const recent = await screen.findByRole('region', { name: 'Recent Single Searches' });
    expect(await within(recent).findByRole('alert')).toHaveTextContent(
      'Error loading recent searches: Could not reach PerilScope. Check your connection and try again.',
    );
    expect(within(recent).queryByText(/No searches yet/)).not.toBeInTheDocument();
  });

  it('exports: the warning, not "No exports yet"', async () => {
    server.use(http.get('/api/list-exported-files', () => err(500, 'boom')));
    openDashboard();
    const exports = await screen.findByRole('region', { name: 'Batch Export History' });
    expect(await within(exports).findByText('Could not load previously exported files list.')).toBeInTheDocument();
    expect(within(exports).queryByText(/No exports yet/)).not.toBeInTheDocument();
  });

  it('both lists say they are empty when they are', async () => {
    openDashboard();
    expect(await screen.findByText(/No searches yet/)).toBeInTheDocument();
    expect(await screen.findByText(/No exports yet/)).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
