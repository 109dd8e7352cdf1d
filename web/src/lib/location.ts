import type { DatasetVersion, LocationMethod, ResultLocation, ScoreReceipt } from '../api/types';

/** How the county was found, in words (the server's `location.method`). */
export const METHOD_WORDS: Record<LocationMethod, string> = {
  zip: 'ZIP code in one county',
  zip_and_place: 'ZIP code and city',
  zip_share: "Where most of the ZIP code's addresses are",
  place: 'City only (unknown ZIP code)',
  geocoder: 'Census geocoder',
  none: 'Not located',
};

/** What the point on the map is (the receipt's `geocode_match`). */
export const MATCH_WORDS: Record<string, string> = {
  building: 'The building itself',
  place: "The city's point (in the county of this answer)",
  zip_centroid: 'Centre of the ZIP code',
  census_exact: 'Census geocoder, exact address',
  none: 'No point found',
};

export const COUNTY_UNCERTAIN = 'County uncertain';

export function methodWords(method: string | null | undefined): string {
  return (method && METHOD_WORDS[method as LocationMethod]) || 'N/A';
}

export function matchWords(match: string | null | undefined): string {
  return (match && MATCH_WORDS[match]) || match || 'N/A';
}

/** 0..1 as a whole percentage ('<1%' for a sliver, never a misleading 0%); null (no measure) as N/A. */
export function percent(share: number | null | undefined): string {
  if (typeof share !== 'number') return 'N/A';
  return share > 0 && share < 0.005 ? '<1%' : `${Math.round(share * 100)}%`;
}

/** 'King, WA (53033)', or N/A when the address was not located. */
export function countyLabel(place: { county_name: string | null; state: string | null; county_fips: string | null }): string {
  if (!place.county_fips) return 'N/A';
  const name = [place.county_name, place.state].filter(Boolean).join(', ');
  return name ? `${name} (${place.county_fips})` : place.county_fips;
}

export function isLowConfidence(location: ResultLocation | null | undefined): boolean {
  return location?.low_confidence === true;
}

function asOf(datasets: DatasetVersion[], name: string): string | null {
  return datasets.find((d) => d.dataset === name)?.as_of ?? null;
}

/**
 * 'Occupants 2026-08-02 · NRI 2025-12': the dates of the data itself (the business registry's
 * snapshot and the National Risk Index release), never when it was searched; N/A when unknown.
 * Where the occupant data does not cover the address its date says nothing about it: left out.
 */
export function dataDates(
  receipt: Pick<ScoreReceipt, 'datasets'> | null | undefined,
  { occupantsCovered = true }: { occupantsCovered?: boolean } = {},
): string {
  const datasets = receipt?.datasets ?? [];
  const parts = [
    ['Occupants', occupantsCovered ? asOf(datasets, 'businesses') : null],
    ['NRI', asOf(datasets, 'nri_counties')],
  ].filter(([, date]) => date).map(([label, date]) => `${label} ${date}`);
  return parts.length ? parts.join(' · ') : 'N/A';
}
