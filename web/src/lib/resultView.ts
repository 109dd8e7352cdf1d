import type { Occupant, OccupantCoverage, RecentSearch } from '../api/types';
import { dataDates, isLowConfidence } from './location';
import { NOT_COVERED, coverageOf, isCovered, occupantCounts, type CountText } from './occupantCoverage';
import { describeSector, mostCommonSector } from './naicsSectors';

/**
 * The 18 geo perils in the order of the data dictionary (SPEC §2 /docs/features). NRI v1.20
 * replaced riverine flooding with inland flooding (IFLD): RFLD_Score is read from it, and says so.
 */
export const HAZARDS: { code: string; name: string; /** A shorter label where room is scarce (a chart axis). */ short?: string }[] = [
  { code: 'AVLN', name: 'Avalanche' }, { code: 'CFLD', name: 'Coastal Flooding' }, { code: 'CWAV', name: 'Cold Wave' },
  { code: 'DRGT', name: 'Drought' }, { code: 'ERQK', name: 'Earthquake' }, { code: 'HAIL', name: 'Hail' },
  { code: 'HWAV', name: 'Heat Wave' }, { code: 'HRCN', name: 'Hurricane' }, { code: 'ISTM', name: 'Ice Storm' },
  { code: 'LNDS', name: 'Landslide' }, { code: 'LTNG', name: 'Lightning' }, { code: 'RFLD', name: 'Riverine Flooding (NRI inland flooding, IFLD)', short: 'Riverine (NRI inland flooding)' },
  { code: 'SWND', name: 'Strong Wind' }, { code: 'TRND', name: 'Tornado' }, { code: 'TSUN', name: 'Tsunami' },
  { code: 'VLCN', name: 'Volcanic Activity' }, { code: 'WFIR', name: 'Wildfire' }, { code: 'WNTW', name: 'Winter Weather' },
];

export const CLOSED = 'CLOSED_PERMANENTLY';
/** Statuses an underwriter is alerted to: the business at this address is not operating. */
export const CLOSED_STATUSES = new Set([CLOSED, 'CLOSED_TEMPORARILY']);

/** How many occupants are closed, permanently or for now. */
export function closedCount(occupants: Pick<Occupant, 'business_status'>[]): number {
  return occupants.filter((o) => CLOSED_STATUSES.has(o.business_status)).length;
}

/** The building's NAICS, explained: its occupants' most common sector. */
export function buildingNaics(occupants: Pick<Occupant, 'naics_code'>[]): string {
  return describeSector(mostCommonSector(occupants));
}
export const ADDRESS_UNKNOWN = 'Address Unknown';
export interface AddressText {
  address: string;
  details: [string, string][];
  vacancies: number | null;
  rentalRate: string | null;
}

/** SPEC §3 address text: street line (cut before 'Year Built:'), then 'Key: value' lines. */
export function parseAddressText(text: string | null | undefined): AddressText {
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return { address: ADDRESS_UNKNOWN, details: [], vacancies: null, rentalRate: null };
  const [first = '', ...rest] = lines;
  const details: [string, string][] = [];
  const marker = first.indexOf('Year Built:');
  const address = (marker >= 0 ? first.slice(0, marker) : first).trim() || ADDRESS_UNKNOWN;
  if (marker >= 0) details.push(['Year Built', first.slice(marker + 'Year Built:'.length).trim()]);
  for (const line of rest) {
    const colon = line.indexOf(':');
    if (colon > 0) details.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  const lookup = (key: string) => details.find(([k]) => k === key)?.[1];
  const space = lookup('Total Space Available')?.match(/\d[\d,]*(\.\d+)?/)?.[0].replace(/,/g, '');
  const rent = lookup('Rental Rate');
  return {
    address,
    details,
    vacancies: space ? Number(space) : null,
    rentalRate: rent && rent !== 'Unknown' ? rent : null,
  };
}

/** NA or N/A mean unknown (SPEC §3). */
export function isUnknown(value: unknown): boolean {
  return value === null || value === undefined || value === '' || value === 'NA' || value === 'N/A';
}

export function operations(occupant: Occupant): string {
  const types = Array.isArray(occupant.types) ? occupant.types.join(', ') : occupant.types;
  return types || 'N/A';
}

export function formatScore(score: number | null | undefined, digits = 2): string {
  return typeof score === 'number' ? score.toFixed(digits) : 'N/A';
}

/** A date as the browser writes it; N/A when there is none (never today's date in its place). */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return 'N/A';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString();
}

/** The dashboard's card for one recent search (SPEC §3 "Displayed result card"). */
export interface ResultCard {
  id: string;
  address: string;
  /** 'Not covered' where no occupant source covers the address: unknown, never 0. */
  occupants: CountText;
  /** null when unknown: shown as N/A, never as a made-up 0 (DESIGN 'Unknown is shown as unknown'). */
  vacancies: number | null;
  /** 'Not available' where the occupant source gives no photos. */
  photos: CountText;
  /** Occupants closed permanently or temporarily. */
  operationAlerts: CountText;
  /** What the occupant data covers; null on answers stored before it was sent. */
  coverage: OccupantCoverage | null;
  /** The date of the data (occupant registry, NRI release), never of the search. */
  dateLastUpdated: string;
  /** When the search was made. */
  searched: string;
  /** The county is uncertain (the server's `location.low_confidence`). */
  lowConfidence: boolean;
  /** The occupants' most common NAICS sector, in words. */
  naicsSummary: string;
  hasWarning: boolean;
  /** Why the warning flag is up: 'Search failed' or 'Closed permanently'. */
  warning: string | null;
  type: string;
  /** null: unknown, shown as N/A. */
  totalScore: number | null;
  top3ScoresCombined: string;
  naics_code: string;
  occupantDetails: Occupant[];
}

export function toCard(search: RecentSearch): ResultCard {
  const result = search.result_data;
  if (!result) {
    return {
      id: search.search_id, address: 'Search Failed', occupants: 0, vacancies: null, photos: 0, operationAlerts: 0, coverage: null,
      dateLastUpdated: 'N/A', searched: formatDate(search.timestamp), lowConfidence: false, naicsSummary: 'N/A',
      hasWarning: true, warning: 'Search failed', type: 'Error', totalScore: null,
      top3ScoresCombined: '', naics_code: 'N/A', occupantDetails: [],
    };
  }
  const text = parseAddressText(result.address);
  const occupants = search.filtered_results ?? [];
  // SPEC §8: a business status of CLOSED_PERMANENTLY sets the warning (the result's or an occupant's).
  const closed =
    result.business_status === CLOSED || occupants.some((o) => o.business_status === CLOSED);
  const coverage = coverageOf({ total_results: search.total_results, occupant_coverage: result.occupant_coverage });
  const counts = occupantCounts(
    { occupants: search.total_results, photos: result.extra_info?.photos?.length ?? 0, operationAlerts: closedCount(occupants) },
    coverage,
  );
  return {
    id: search.search_id,
    address: text.address,
    ...counts,
    coverage,
    vacancies: result.vacancies ?? text.vacancies,
    dateLastUpdated: dataDates(result.receipt, { occupantsCovered: isCovered(coverage) }),
    searched: formatDate(search.timestamp),
    lowConfidence: isLowConfidence(result.location),
    // Where no occupant source covers the address its sectors are unknown too, never 'None'.
    naicsSummary: isCovered(coverage) ? buildingNaics(occupants) : NOT_COVERED,
    hasWarning: closed,
    warning: closed ? 'Closed permanently' : null,
    type: (result.types ?? []).join(', '),
    totalScore: result.Total_Score ?? null,
    top3ScoresCombined: result.Top3_Scores_Combined ?? '',
    naics_code: result.naics_code ?? 'N/A',
    occupantDetails: occupants,
  };
}

/** SPEC §4: the recent list leaves out batch files and the Latest Result. */
export function splitRecent(searches: RecentSearch[]): { latest: RecentSearch | null; others: RecentSearch[] } {
  const singles = searches.filter((s) => !s.address.toLowerCase().includes('.csv'));
  return { latest: singles[0] ?? null, others: singles.slice(1) };
}

/** The navigation state a card passes to /search-result/{id} (SPEC §2). */
export interface ResultNavState {
  id: string;
  address: string;
  vacancies: number | null;
  photosCount: number;
  dateLastUpdated: string;
  imageUrl: string | null;
  occupantDetails: Occupant[];
  /** null: unknown (N/A), never 0. */
  totalScore: number | null;
  top3ScoresCombined: string;
  naics_code: string;
  /** From an export group's card: its building details (a stored search has them on the server). */
  buildingDetails?: [string, string][];
  /** What the occupant data covers; absent or null when not said (the counts then stand). */
  occupantCoverage?: OccupantCoverage | null;
}

export function navigationState(card: ResultCard, imageUrl: string | null = null): ResultNavState {
  return {
    id: card.id,
    address: card.address,
    vacancies: card.vacancies,
    // Unknown photos ('Not covered', 'Not available') stay unknown through occupantCoverage.
    photosCount: typeof card.photos === 'number' ? card.photos : 0,
    dateLastUpdated: card.dateLastUpdated,
    imageUrl,
    occupantDetails: card.occupantDetails,
    totalScore: card.totalScore,
    top3ScoresCombined: card.top3ScoresCombined,
    naics_code: card.naics_code,
    occupantCoverage: card.coverage,
  };
}

/** The navigation state, when it is a card's and its id is the route's id (SPEC §4); else null. */
export function readNavState(state: unknown, id: string): ResultNavState | null {
  if (!state || typeof state !== 'object') return null;
  const s = state as Partial<ResultNavState>;
  if (s.id !== id || typeof s.address !== 'string') return null;
  return {
    id,
    address: s.address,
    vacancies: typeof s.vacancies === 'number' ? s.vacancies : null,
    photosCount: typeof s.photosCount === 'number' ? s.photosCount : 0,
    dateLastUpdated: typeof s.dateLastUpdated === 'string' ? s.dateLastUpdated : 'N/A',
    imageUrl: typeof s.imageUrl === 'string' ? s.imageUrl : null,
    occupantDetails: Array.isArray(s.occupantDetails) ? s.occupantDetails : [],
    totalScore: typeof s.totalScore === 'number' ? s.totalScore : null,
    top3ScoresCombined: typeof s.top3ScoresCombined === 'string' ? s.top3ScoresCombined : '',
    naics_code: typeof s.naics_code === 'string' ? s.naics_code : 'N/A',
    buildingDetails: Array.isArray(s.buildingDetails) ? s.buildingDetails : undefined,
    occupantCoverage: s.occupantCoverage && typeof s.occupantCoverage === 'object' ? s.occupantCoverage : null,
  };
}
