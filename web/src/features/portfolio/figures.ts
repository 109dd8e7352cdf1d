import type { CountyExposure } from '../../api/types';

/** Sequential blues (ColorBrewer Blues, 5 classes): readable by every kind of colour vision. */
export const CLASS_COLOURS = ['#c6dbef', '#9ecae1', '#6baed6', '#3182bd', '#08519c'];
export const ABSENT_COLOUR = '#eef1f5';
export const HIGH_RATINGS = ['Very High', 'Relatively High'];
export const RATING_ORDER = [
  'Very High', 'Relatively High', 'Relatively Moderate', 'Relatively Low', 'Very Low',
  'No Rating', 'Not Applicable', 'Insufficient Data', 'no rating',
];
export const MATCH_LEVEL_NAMES: Record<string, string> = {
  building: 'At the building',
  census_exact: 'Census geocoder',
  place: "City's point",
  zip_centroid: 'ZIP centre',
};
export const CONNECTICUT = '09';
export const NO_SECTOR = 'none';
// Locations no occupant source covers: their occupants are unknown, not none.
export const NOT_COVERED_SECTOR = 'not covered';

const whole = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export function count(value: number): string {
  return whole.format(value);
}

export function amount(value: number): string {
  return Math.abs(value) >= 10_000 ? compact.format(value) : whole.format(Math.round(value * 100) / 100);
}

export function percent(part: number, total: number): string {
  return total > 0 ? `${Math.round((part / total) * 1000) / 10}%` : '—';
}

export function score(value: number | null): string {
  return value === null ? 'N/A' : value.toFixed(1);
}

export function binLabel(index: number, bins: number): string {
  const width = 100 / bins;
  return `${index * width}–${(index + 1) * width}`;
}

/** Ratings in NRI order (highest first), any unexpected one after them. */
export function orderedRatings(ratings: Iterable<string>): string[] {
  const seen = [...new Set(ratings)];
  const rank = (rating: string) => {
    const position = RATING_ORDER.indexOf(rating);
    return position === -1 ? RATING_ORDER.length : position;
  };
  return seen.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * The server's 'no rating' is a row that carries no rating at all (not located, or no scores for
 * its county): never FEMA's 'No Rating' (rated 0), 'Not Applicable' or 'Insufficient Data', which
 * keep FEMA's words.
 */
export const NOT_SCORED = 'Not scored (no rating in the row)';

export function ratingLabel(rating: string): string {
  return rating === 'no rating' ? NOT_SCORED : rating;
}

/**
 * Why `unknown` locations have no score for a peril, from its ratings: FEMA's Not Applicable and
 * Insufficient Data by name, the rest not scored (not located, or no scores for the county).
 */
export function unknownParts(unknown: number, ratings: Record<string, number>): string[] {
  const parts: string[] = [];
  let named = 0;
  for (const rating of ['Not Applicable', 'Insufficient Data']) {
    const n = Math.min(ratings[rating] ?? 0, unknown - named);
    if (n > 0) {
      parts.push(`${count(n)} ${rating}`);
      named += n;
    }
  }
  if (unknown - named > 0) parts.push(`${count(unknown - named)} not scored (not located, or no scores for the county)`);
  return parts;
}

/** A county on the map: its own figures, or for Connecticut the state's planning regions together. */
export interface MapUnit {
  key: string; // county FIPS, or '09' for Connecticut
  label: string;
  locations: number;
  value: number | null;
}

/**
 * The map's units from the summary's counties. NRI v1.20 scores Connecticut by its 9 planning
 * regions (09110-09190) while the map's shapes are the 8 former counties; the two do not nest,
 * so Connecticut is shaded as one, with its regions listed in the table.
 */
export function mapUnits(counties: CountyExposure[]): Map<string, MapUnit> {
  const units = new Map<string, MapUnit>();
  for (const county of counties) {
    const connecticut = county.county_fips.startsWith(CONNECTICUT);
    const key = connecticut ? CONNECTICUT : county.county_fips;
    const unit = units.get(key) ?? {
      key,
      label: connecticut ? 'Connecticut (all planning regions)' : countyLabel(county),
      locations: 0,
      value: null,
    };
    unit.locations += county.locations;
    if (county.value !== null) unit.value = (unit.value ?? 0) + county.value;
    units.set(key, unit);
  }
  return units;
}

export function countyLabel(county: Pick<CountyExposure, 'county_fips' | 'county_name' | 'state'>): string {
  const name = county.county_name ?? `County ${county.county_fips}`;
  return county.state ? `${name}, ${county.state}` : name;
}

/**
 * Upper bounds of up to 5 colour classes: quantiles of the counties' values, so each class holds
 * about as many counties. A book of mostly one or two locations a county gives few distinct
 * quantiles (1, 2, 258); the top class is then split geometrically (1, 2, 3-10, 11-51, 52-258),
 * so the large counties still stand apart. Each class holds the values above the previous bound
 * up to its own.
 */
export function classBounds(values: number[]): number[] {
  const sorted = values.filter((v) => v > 0).sort((a, b) => a - b);
  if (sorted.length === 0) return [];
  const classes = CLASS_COLOURS.length;
  const bounds: number[] = [];
  for (let step = 1; step <= classes; step += 1) {
    const bound = sorted[Math.min(sorted.length - 1, Math.ceil((sorted.length * step) / classes) - 1)]!;
    if (bounds[bounds.length - 1] !== bound) bounds.push(bound);
  }
  const whole = sorted.every(Number.isInteger);
  const top = bounds[bounds.length - 1]!;
  const below = bounds.length > 1 ? bounds[bounds.length - 2]! : sorted[0]!;
  const missing = classes - bounds.length;
  if (missing > 0 && below > 0 && top > below) {
    const ratio = (top / below) ** (1 / (missing + 1));
    const extra = Array.from({ length: missing }, (_, i) => below * ratio ** (i + 1)).map((v) => (whole ? Math.round(v) : v));
    const merged = [...bounds.slice(0, -1), ...extra, top].filter((v, i, all) => v > (all[i - 1] ?? 0));
    return merged;
  }
  return bounds;
}

export function classOf(value: number, bounds: number[]): number {
  const index = bounds.findIndex((bound) => value <= bound);
  return index === -1 ? bounds.length - 1 : index;
}

/** Colours used for the classes: spread over the palette when there are fewer than 5. */
export function classColours(bounds: number[]): string[] {
  if (bounds.length >= CLASS_COLOURS.length) return CLASS_COLOURS;
  if (bounds.length === 1) return [CLASS_COLOURS[CLASS_COLOURS.length - 1]!];
  return bounds.map((_, i) => CLASS_COLOURS[Math.round((i * (CLASS_COLOURS.length - 1)) / (bounds.length - 1))]!);
}

/** "NRI 1.19.0 (March 2023): 2 · NRI 1.20.0 (December 2025): 1" from release -> locations. */
export function releaseList(byVersion: Record<string, number>): string {
  return Object.entries(byVersion)
    .map(([version, n]) => `${version === 'unknown' ? 'unknown release' : `NRI ${version}`}: ${count(n)}`)
    .join(' · ');
}

/** Whether two version texts name the same NRI release ("1.20.0" and "1.20.0 (December 2025)" do). */
export function sameRelease(a: string | null, b: string | null): boolean {
  if (!a || !b) return true; // an unknown release is shown as unknown, not flagged as another
  return a.trim().split(/\s+/)[0] === b.trim().split(/\s+/)[0];
}
