import type { GroupDetails } from '../../lib/exports/detailed';

export interface GroupFilter {
  matchLevel: string;
  county: string;
  rating: string;
}

export const NO_FILTER: GroupFilter = { matchLevel: '', county: '', rating: '' };
export const UNKNOWN_VALUE = '(unknown)';

export interface FilterOptions {
  matchLevels: string[];
  counties: { fips: string; label: string }[];
  ratings: string[];
}

const RATING_ORDER = ['Very High', 'Relatively High', 'Relatively Moderate', 'Relatively Low', 'Very Low'];

function ratingOf(details: GroupDetails): string {
  return details.ratings?.Total ?? UNKNOWN_VALUE;
}

function countyOf(details: GroupDetails): string {
  return details.location?.county_fips ?? UNKNOWN_VALUE;
}

/** What each filter can be set to, from the groups present. */
export function filterOptions(details: GroupDetails[]): FilterOptions {
  const levels = new Set<string>();
  const ratings = new Set<string>();
  const counties = new Map<string, string>();
  for (const group of details) {
    levels.add(group.matchLevel ?? UNKNOWN_VALUE);
    ratings.add(ratingOf(group));
    const fips = countyOf(group);
    if (!counties.has(fips)) {
      const location = group.location;
      counties.set(fips, fips === UNKNOWN_VALUE ? 'Not located' : `${location?.county_name ?? fips}${location?.state ? `, ${location.state}` : ''}`);
    }
  }
  const rank = (rating: string) => (RATING_ORDER.includes(rating) ? RATING_ORDER.indexOf(rating) : RATING_ORDER.length);
  return {
    matchLevels: [...levels].sort(),
    counties: [...counties].map(([fips, label]) => ({ fips, label })).sort((a, b) => a.label.localeCompare(b.label)),
    ratings: [...ratings].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)),
  };
}

/** Positions of the groups that pass every filter set (all of them without details or filters). */
export function filteredIndices(count: number, details: GroupDetails[] | null, filter: GroupFilter): number[] {
  const all = Array.from({ length: count }, (_, i) => i);
  if (!details || (!filter.matchLevel && !filter.county && !filter.rating)) return all;
  return all.filter((i) => {
    const group = details[i];
    if (!group) return false;
    return (!filter.matchLevel || (group.matchLevel ?? UNKNOWN_VALUE) === filter.matchLevel)
      && (!filter.county || countyOf(group) === filter.county)
      && (!filter.rating || ratingOf(group) === filter.rating);
  });
}
