import { describe, expect, it } from 'vitest';
import type { GroupDetails } from '../../lib/exports/detailed';
import { NO_FILTER, UNKNOWN_VALUE, filterOptions, filteredIndices } from './groupFilters';

function group(matchLevel: string | null, fips: string | null, rating: string | null): GroupDetails {
  return {
    perils: null,
    ratings: rating ? { Total: rating } : null,
    receipt: null,
    location: fips ? ({ county_fips: fips, county_name: fips === '53033' ? 'King' : 'Pierce', state: 'WA' } as GroupDetails['location']) : null,
    matchLevel,
    tract: null,
  };
}

const GROUPS = [
  group('building', '53033', 'Very High'),
  group('zip_centroid', '53053', 'Relatively High'),
  group('none', null, null),
  group('building', '53053', 'Very High'),
];

describe('export viewer filters', () => {
  it('offers the match levels, counties and ratings present, unknown included', () => {
    const options = filterOptions(GROUPS);
    expect(options.matchLevels).toEqual(['building', 'none', 'zip_centroid']);
    expect(options.counties).toEqual([
      { fips: '53033', label: 'King, WA' }, { fips: UNKNOWN_VALUE, label: 'Not located' }, { fips: '53053', label: 'Pierce, WA' },
    ]);
    expect(options.ratings).toEqual(['Very High', 'Relatively High', UNKNOWN_VALUE]);
  });

  it('keeps the groups passing every filter set, in file order', () => {
    expect(filteredIndices(4, GROUPS, NO_FILTER)).toEqual([0, 1, 2, 3]);
    expect(filteredIndices(4, GROUPS, { ...NO_FILTER, county: '53053' })).toEqual([1, 3]);
    expect(filteredIndices(4, GROUPS, { matchLevel: 'building', county: '53053', rating: 'Very High' })).toEqual([3]);
    expect(filteredIndices(4, GROUPS, { ...NO_FILTER, rating: UNKNOWN_VALUE })).toEqual([2]);
    // Without the detailed export nothing can be filtered: every group stays.
    expect(filteredIndices(3, null, { ...NO_FILTER, county: '53033' })).toEqual([0, 1, 2]);
  });
});
