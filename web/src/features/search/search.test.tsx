import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { RecentSearch, SearchResult } from '../../api/types';
import { ANN, db } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { actionLabel } from './LookupPanel';
import { LIMIT_MESSAGE, parseAddressText, searchErrorMessage, splitRecent } from './resultView';

const perils = Object.fromEntries(
  ['AVLN', 'CFLD', 'CWAV', 'DRGT', 'ERQK', 'HAIL', 'HWAV', 'HRCN', 'ISTM', 'LNDS', 'LTNG', 'RFLD', 'SWND', 'TRND', 'TSUN', 'VLCN', 'WFIR', 'WNTW']
    .map((code) => [`${code}_Score`, code === 'AVLN' ? null : 50]),
);

function result(id: string, address: string): SearchResult {
  return {
    search_id: id, query: address, address: `${address} Year Built: 1985\nFloors: 76\nTotal Space Available: Unknown`,
    timestamp: '2026-11-20T10:00:00Z',
    occupants: [{ name: 'ACME INC', vicinity: address, types: ['establishment'], business_status: 'OPERATIONAL', lat: 1, lng: 2, naics_code: '518210', naics_title: 'Computing' }],
    total_results: 1, perils: { ...perils, Total_Score: 99.7 }, ratings: {}, Total_Score: 99.7,
    Top3_Scores_Combined: 'Earthquake: 99.9\nRiverine Flooding: 99.5\nLandslide: 99.3', naics_code: '518210',
    types: ['establishment'], business_status: 'OPERATIONAL', extra_info: { photos: [], rating: null },
    vacancies: null, rental_rate: null,
    receipt: { nri_version: '1.20.0', county_fips: '53033', county_name: 'King', state: 'WA', geography_level: 'county', geocode_match: 'building', lat: 1, lng: 2, providers: { geocoder: 'embedded' }, scored_at: '2026-11-20T10:00:00Z' },
  };
}

function recent(id: string, address: string): RecentSearch {
  const data = result(id, address);
  return { search_id: id, address, timestamp: data.timestamp, total_results: 1, filtered_results: data.occupants, result_data: data };
}

describe('lookup rules', () => {
  it('labels the one action button as SPEC §2 says', () => {
    const file = new File(['a'], 'a.csv');
    expect(actionLabel({ busy: false, limitReached: false, address: '', file: null })).toBe('Search');
    expect(actionLabel({ busy: false, limitReached: false, address: '1 Main St', file: null })).toBe('Search Address');
    expect(actionLabel({ busy: false, limitReached: false, address: '', file })).toBe('Process Batch File');
    expect(actionLabel({ busy: true, limitReached: false, address: 'x', file })).toBe('Processing...');
    expect(actionLabel({ busy: false, limitReached: true, address: 'x', file })).toBe('Monthly search limit reached');
  });

  it('maps failures to the SPEC §8 texts', () => {
    expect(searchErrorMessage({ status: 'TIMEOUT_ERROR', error: 'x' }).text).toMatch(/^Search request timed out/);
    expect(searchErrorMessage({ status: 504, data: {} }).text).toMatch(/^Server gateway timeout/);
    expect(searchErrorMessage({ status: 503, data: {} }).text).toBe('Service temporarily unavailable. Please try again in a few minutes.');
    expect(searchErrorMessage({ status: 500, data: {} }).text).toMatch(/^Server error occurred/);
    expect(searchErrorMessage({ status: 429, data: { error: 'Monthly search limit reached: search limit reached (10 searches/month)' } }))
      .toEqual({ text: LIMIT_MESSAGE, limitReached: true });
    expect(searchErrorMessage({ status: 400, data: { error: 'Could not find a ZIP code' } }).text).toBe('Search error: Could not find a ZIP code');
  });

  it('reads the address text and leaves batch files and the latest out of the list', () => {
    const text = parseAddressText('701 5th Ave Year Built: 1985\nTotal Space Available: 1,200');
    expect(text).toMatchObject({ address: '701 5th Ave', vacancies: 1200 });
    expect(text.details[0]).toEqual(['Year Built', '1985']);
    const { latest, others } = splitRecent([recent('3', 'batch.csv'), recent('2', 'B St'), recent('1', 'A St')]);
    expect(latest?.search_id).toBe('2');
    expect(others.map((s) => s.search_id)).toEqual(['1']);
  });
});

describe('dashboard and result page', () => {
  it('searches, shows the no-results warning and refreshes the recent list', async () => {
    let searches: RecentSearch[] = [];
    server.use(
      http.get('/api/recent-searches', () => HttpResponse.json({ status: 'success', searches })),
      http.get('/api/nearby-search', ({ request }) => {
        const address = new URL(request.url).searchParams.get('address') ?? '';
        const stored = { ...recent('9', address), filtered_results: [], total_results: 0 };
        searches = [stored];
        return HttpResponse.json({ status: 'success', search_id: '9', data: [], result: stored.result_data });
      }),
    );
    const { user } = renderApp({ route: '/data-processing', preloadedState: signedInState(ANN) });
    expect(await screen.findByText(/No searches yet/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Property address'), '1 Main St, Miami, FL 33130');
    await user.click(screen.getByRole('button', { name: 'Search Address' }));
    expect(await screen.findByText('No results found for this address')).toBeInTheDocument();
    expect(await screen.findByText('Latest Result')).toBeInTheDocument();
  });

  it('disables the button when a regular user has no searches left', async () => {
    db.stats = { current_month_searches: 10, search_limit: 10, remaining_searches: 0, total_searches: 10, last_search_date: null };
    server.use(http.get('/api/recent-searches', () => HttpResponse.json({ status: 'success', searches: [] })));
    renderApp({ route: '/data-processing', preloadedState: signedInState(ANN) });
    const button = await screen.findByRole('button', { name: 'Monthly search limit reached' });
    expect(button).toBeDisabled();
  });

  it('loads a stored result from the server with N/A for unknowns and Previous/Next', async () => {
    server.use(
      http.get('/api/search-results/:id', ({ params }) =>
        params.id === 'b'
          ? HttpResponse.json({ status: 'success', search: recent('b', '701 5th Ave'), previous_id: null, next_id: 'c' })
          : HttpResponse.json({ status: 'error', error: 'Could not load result data.' }, { status: 404 }),
      ),
    );
    const { user } = renderApp({ route: '/search-result/b', preloadedState: signedInState(ANN) });
    expect(await screen.findByRole('heading', { level: 1, name: '701 5th Ave' })).toBeInTheDocument();
    expect(screen.getByText('Occupant Detail')).toBeInTheDocument();
    expect(screen.getAllByText('N/A').length).toBeGreaterThan(0); // vacancies and rental rate are unknown
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Could not load result data.')).toBeInTheDocument();
  });
});
