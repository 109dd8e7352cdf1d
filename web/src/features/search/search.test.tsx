import { describe, expect, it } from 'vitest';
import { batchSearch, failedSearch, occupant, recentSearch } from '../../test/searchFixtures';
import { actionLabel } from './LookupPanel';
import { UNREACHABLE } from '../../api/errors';
import { buildingNaics, navigationState, parseAddressText, readNavState, splitRecent, toCard } from '../../lib/resultView';
import { dataDates } from '../../lib/location';
import { sectorOf } from '../../lib/naicsSectors';
import { batchErrorMessage, LIMIT_MESSAGE, limitMessage, searchErrorMessage, uploadErrorText } from './errorMessages';

describe('lookup rules', () => {
  it('labels the one action button as SPEC §2 says', () => {
    const file = new File(['a'], 'a.csv');
    expect(actionLabel({ busy: false, limitReached: false, address: '', file: null })).toBe('Search');
    expect(actionLabel({ busy: false, limitReached: false, address: '   ', file: null })).toBe('Search');
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
    const limited = (limit: number) => ({ status: 429, data: { error: 'any wording', code: 'quota_exceeded', details: { limit } } });
    expect(searchErrorMessage(limited(10))).toEqual({ text: LIMIT_MESSAGE, limitReached: true });
    // An administrator lowered the limit to 3: the message says so, from the error's details.
    expect(searchErrorMessage(limited(3)).text)
      .toBe('You have reached your monthly search limit (3 searches/month). Please contact an administrator to upgrade your account.');
    expect(limitMessage(10)).toBe(LIMIT_MESSAGE);
    // The code decides, not the prose: a 429 for another reason is not the monthly limit.
    const tooFast = { status: 429, data: { error: 'search limit reached? no: too many requests', code: 'rate_limited' } };
    expect(searchErrorMessage(tooFast).limitReached).toBe(false);
    expect(batchErrorMessage({ status: 429, data: { error: 'rows', code: 'batch_rows_exceeded' } }).limitReached).toBe(false);
    expect(searchErrorMessage({ status: 400, data: { error: 'Could not find a ZIP code' } }).text).toBe('Search error: Could not find a ZIP code');
  });

  it("words a failure that never reached the server as a sentence, never the browser's error", () => {
    const offline = { status: 'FETCH_ERROR', error: 'TypeError: Failed to fetch' };
    expect(searchErrorMessage(offline).text).toBe(`Search error: ${UNREACHABLE}`);
    expect(batchErrorMessage(offline).text).toBe(`Batch processing error: ${UNREACHABLE}`);
    expect(uploadErrorText(offline)).toBe(`Upload error: ${UNREACHABLE}`);
    // A proxy's HTML error page is not JSON: a server failure, not a parser's message.
    const proxyPage = { status: 'PARSING_ERROR', originalStatus: 502, data: '<html>', error: 'SyntaxError: Unexpected token <' };
    expect(searchErrorMessage(proxyPage).text).toMatch(/^Server error occurred/);
    expect(uploadErrorText(proxyPage)).toMatch(/^Upload error: The server ran into a problem\./);
    for (const text of [searchErrorMessage(offline).text, uploadErrorText(proxyPage)]) expect(text).not.toMatch(/TypeError|SyntaxError/);
    expect(uploadErrorText({ status: 413, data: { error: 'File too large' } })).toBe('Upload failed: File too large');
  });

  it('reads the SPEC §3 address text', () => {
    const text = parseAddressText('701 5th Ave Year Built: 1985\nTotal Space Available: 1,200 sq ft\nRental Rate: $30/sq ft');
    expect(text).toMatchObject({ address: '701 5th Ave', vacancies: 1200, rentalRate: '$30/sq ft' });
    expect(text.details[0]).toEqual(['Year Built', '1985']);
    expect(parseAddressText('1 Main St\nTotal Space Available: Unknown\nRental Rate: Unknown')).toMatchObject({ vacancies: null, rentalRate: null });
    expect(parseAddressText('').address).toBe('Address Unknown');
  });

  it('leaves batch files and the latest out of the recent list', () => {
    const { latest, others } = splitRecent([batchSearch('3', 'batch.csv'), recentSearch('2', 'B St'), batchSearch('4', 'more.CSV'), recentSearch('1', 'A St')]);
    expect(latest?.search_id).toBe('2');
    expect(others.map((s) => s.search_id)).toEqual(['1']);
  });

  it('builds a card: failed searches and closed businesses carry the warning; unknown vacancies stay unknown', () => {
    expect(toCard(failedSearch('f', '9 Nowhere'))).toMatchObject({ address: 'Search Failed', type: 'Error', hasWarning: true });
    const ok = toCard(recentSearch('a', '701 5th Ave'));
    expect(ok).toMatchObject({
      address: '701 5th Ave', vacancies: null, photos: 2, operationAlerts: 0, hasWarning: false, totalScore: 99.7,
      dateLastUpdated: 'Occupants 2026-08-02 · NRI 2025-12', lowConfidence: false, naicsSummary: 'Most common: 51 Information (1 of 1)',
    });
    expect(toCard(recentSearch('n', '3 Pike St', { Total_Score: null })).totalScore).toBeNull();
    const closed = recentSearch('c', '1 Pike St');
    closed.filtered_results = [occupant({ business_status: 'CLOSED_PERMANENTLY' })];
    expect(toCard(closed)).toMatchObject({ hasWarning: true, warning: 'Closed permanently' });
    expect(toCard(recentSearch('d', '2 Pike St', { business_status: 'CLOSED_PERMANENTLY' })).hasWarning).toBe(true);
  });

  it('names the most common NAICS sector: ranges, ties, unclassified and empty buildings', () => {
    const codes = (...list: string[]) => list.map((naics_code) => ({ naics_code }));
    expect(buildingNaics(codes('311811', '332710', '722511'))).toBe('Most common: 31-33 Manufacturing (2 of 3)');
    expect(buildingNaics(codes('722511', '541511'))).toBe('Most common: 54 Professional, Scientific, and Technical Services (1 of 2)');
    expect(buildingNaics(codes('N/A', 'NA'))).toBe('N/A');
    expect(buildingNaics([])).toBe('None');
    expect(sectorOf('99')).toBeNull();
  });

  it('data dates come from the receipt, never from the clock', () => {
    expect(dataDates({ datasets: [{ dataset: 'businesses', version: null, as_of: '2026-08-02' }] })).toBe('Occupants 2026-08-02');
    expect(dataDates({ datasets: [] })).toBe('N/A');
    expect(dataDates(null)).toBe('N/A');
  });

  it('passes the SPEC §2 navigation state and reads it back only for the same id', () => {
    const state = navigationState(toCard(recentSearch('a', '701 5th Ave')), '/api/place-photo?ref=ref-1');
    expect(Object.keys(state).sort()).toEqual(
      ['address', 'dateLastUpdated', 'id', 'imageUrl', 'naics_code', 'occupantCoverage', 'occupantDetails', 'photosCount', 'top3ScoresCombined', 'totalScore', 'vacancies'],
    );
    // Beside SPEC §2's fields, whether the occupant data covers the address (#26, item 2).
    expect(readNavState(state, 'a')?.occupantCoverage?.covered).toBe(true);
    expect(readNavState(state, 'a')?.address).toBe('701 5th Ave');
    expect(readNavState(state, 'b')).toBeNull();
    expect(readNavState(null, 'a')).toBeNull();
  });
});
