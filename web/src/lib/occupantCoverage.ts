import type { OccupantCoverage, SearchResult } from '../api/types';

/**
 * Occupants, photos and operation alerts are counts we can only know where an occupant source
 * covers the address (STYLE §10): elsewhere they are unknown and read 'Not covered', never 0; 0
 * means a covered place where none was found. Photos are unknown too where the source gives none.
 */
export const NOT_COVERED = 'Not covered';
export const PHOTOS_NOT_AVAILABLE = 'Not available';

/** A count as shown: the number, or why there is none. */
export type CountText = number | typeof NOT_COVERED | typeof PHOTOS_NOT_AVAILABLE;

/**
 * The answer's coverage; null for an answer stored before it was sent. Such an answer without a
 * count (total_results null) was not covered either.
 */
export function coverageOf(result: Pick<SearchResult, 'total_results'> & { occupant_coverage?: OccupantCoverage | null }): OccupantCoverage | null {
  if (result.occupant_coverage) return result.occupant_coverage;
  if (result.total_results === null) return { covered: false, source: null, covers: '', photos: false };
  return null;
}

export function isCovered(coverage: OccupantCoverage | null | undefined): boolean {
  return coverage?.covered !== false;
}

export interface OccupantCounts {
  occupants: CountText;
  photos: CountText;
  operationAlerts: CountText;
}

/** The three counts as they are shown, from what was counted and the coverage (null: not said, the counts stand). */
export function occupantCounts(
  counted: { occupants: number | null; photos: number; operationAlerts: number },
  coverage: OccupantCoverage | null | undefined,
): OccupantCounts {
  if (!isCovered(coverage) || counted.occupants === null) {
    return { occupants: NOT_COVERED, photos: NOT_COVERED, operationAlerts: NOT_COVERED };
  }
  return {
    occupants: counted.occupants,
    photos: coverage && !coverage.photos ? PHOTOS_NOT_AVAILABLE : counted.photos,
    operationAlerts: counted.operationAlerts,
  };
}
