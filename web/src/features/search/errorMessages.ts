import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { failureText } from '../../api/errors';
import type { SearchResult } from '../../api/types';
import { coverageOf, isCovered } from '../../lib/occupantCoverage';
import { INSUFFICIENT_DATA } from '../../lib/nriRatings';

export const NO_RESULTS = 'No results found for this address';
export const SCORES_NOT_COVERED = 'Risk scores found; no occupant data covers this address.';
export const SCORES_NONE_REGISTERED = 'Risk scores found; no businesses are registered at this address.';
/** The county was found and FEMA rates it Insufficient Data overall (San Juan Municipio, PR): no scores, but not 'No results'. */
export const NO_SCORES_INSUFFICIENT_DATA = 'County found; FEMA has too little data to score it (Insufficient Data).';

/**
 * What a finished lookup found, said precisely: SPEC §8's 'No results found for this address' only
 * when nothing at all was found; scores without occupants say which of the two it is (no occupant
 * data covers the address, or it covers it and no business is registered there); a county FEMA
 * rates Insufficient Data overall is found, not 'No results'.
 */
export function lookupMessage(result: SearchResult, occupants: number, address: string): { kind: 'success' | 'warning'; text: string } {
  if (occupants > 0) return { kind: 'success', text: `Found ${occupants} occupant(s) at ${address}` };
  const scored = typeof result.Total_Score === 'number' || Object.values(result.perils ?? {}).some((v) => typeof v === 'number');
  const covered = isCovered(coverageOf(result));
  if (!scored && result.ratings?.Total === INSUFFICIENT_DATA) {
    const occupants = covered ? 'No businesses are registered at this address.' : 'No occupant data covers this address.';
    return { kind: 'warning', text: `${NO_SCORES_INSUFFICIENT_DATA} ${occupants}` };
  }
  if (!scored) return { kind: 'warning', text: NO_RESULTS };
  return { kind: 'success', text: covered ? SCORES_NONE_REGISTERED : SCORES_NOT_COVERED };
}
/** SPEC §8's monthly limit message, with the limit the server reports (10 unless an admin changed it). */
export function limitMessage(limit: number = 10): string {
  return `You have reached your monthly search limit (${limit} searches/month). Please contact an administrator to upgrade your account.`;
}

export const LIMIT_MESSAGE = limitMessage();

/**
 * The HTTP status of a failure. A body that is not JSON (a proxy's HTML 502 page) comes back from
 * fetchBaseQuery as PARSING_ERROR with the real status in originalStatus.
 */
function httpStatus(error: FetchBaseQueryError | undefined): number | string | undefined {
  if (!error) return undefined;
  if (error.status === 'PARSING_ERROR') return error.originalStatus;
  return error.status;
}

interface ErrorBody {
  error?: string;
  detail?: string;
  code?: string;
  details?: { limit?: number };
}

function serverText(error: FetchBaseQueryError): string | undefined {
  const data = error.data as ErrorBody | undefined;
  return data?.error ?? data?.detail;
}

/** The monthly search limit, when the server refused for it: its machine code, never its wording. */
function searchLimitOf(error: FetchBaseQueryError | undefined): number | null {
  const data = error?.data as ErrorBody | undefined;
  if (data?.code !== 'quota_exceeded') return null;
  return typeof data.details?.limit === 'number' ? data.details.limit : 10;
}

/** SPEC §8's single-search messages, by status. */
export function searchErrorMessage(error: unknown): { text: string; limitReached: boolean } {
  const failure = error as FetchBaseQueryError | undefined;
  const status = httpStatus(failure);
  const limit = searchLimitOf(failure);
  if (status === 'TIMEOUT_ERROR') {
    return { text: 'Search request timed out. The server may be busy processing your request. Please try again in a few minutes.', limitReached: false };
  }
  if (limit !== null) return { text: limitMessage(limit), limitReached: true };
  if (status === 504) return { text: 'Server gateway timeout. The search is taking longer than expected...', limitReached: false };
  if (status === 503) return { text: 'Service temporarily unavailable. Please try again in a few minutes.', limitReached: false };
  if (typeof status === 'number' && status >= 500) {
    return { text: 'Server error occurred. Please try again or contact support if this persists.', limitReached: false };
  }
  // SPEC §8 'Search error: {...}': the {...} a sentence (never the browser's 'TypeError: Failed to fetch').
  return { text: `Search error: ${failureText(failure)}`, limitReached: false };
}

/** SPEC §8's batch messages, by status. */
export function batchErrorMessage(error: unknown): { text: string; limitReached: boolean } {
  const failure = error as FetchBaseQueryError | undefined;
  const status = httpStatus(failure);
  const limit = searchLimitOf(failure);
  if (limit !== null) return { text: limitMessage(limit), limitReached: true };
  if (status === 504) {
    return {
      text: 'Server gateway timeout during batch processing. This may happen with large files. Please try again or contact support if this persists.',
      limitReached: false,
    };
  }
  if (status === 503) return { text: 'Service temporarily unavailable. Please try again in a few minutes.', limitReached: false };
  if (typeof status === 'number' && status >= 500) {
    return { text: 'Server error occurred during batch processing. Please try again or contact support.', limitReached: false };
  }
  return { text: `Batch processing error: ${failureText(failure)}`, limitReached: false };
}

/** SPEC §8: 'Upload failed: {server text}' when the server refused it, 'Upload error: {...}' when it never got there. */
export function uploadErrorText(error: unknown): string {
  const failure = error as FetchBaseQueryError | undefined;
  const status = httpStatus(failure);
  if (typeof status === 'number' && status < 500) return `Upload failed: ${serverText(failure!) ?? 'Unknown upload error'}`;
  return `Upload error: ${failureText(failure)}`;
}

/** The server's machine code for a refusal (e.g. 'no_failed_rows'), if it sent one. */
export function errorCodeOf(error: unknown): string | undefined {
  const data = (error as FetchBaseQueryError | undefined)?.data as ErrorBody | undefined;
  return data?.code;
}
