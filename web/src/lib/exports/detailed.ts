import { skipToken } from '@reduxjs/toolkit/query';
import { api } from '../../api/api';
import type { OccupantCoverage, ResultLocation, ScoreReceipt, TractScores } from '../../api/types';
import { HAZARDS } from '../resultView';

/**
 * The formats of GET /api/exports/{filename}/detailed (the SPEC CSV stays at /api/download): Parquet
 * carries the same columns typed, for pandas, DuckDB or a warehouse.
 */
export type DetailedFormat = 'csv' | 'xlsx' | 'jsonl' | 'parquet';

export function detailedExportPath(filename: string, format: DetailedFormat): string {
  return `/api/exports/${encodeURIComponent(filename)}/detailed?format=${format}`;
}

/** What the detailed export adds to an address group beyond the SPEC CSV. */
export interface GroupDetails {
  perils: Record<string, number | null> | null;
  ratings: Record<string, string | null> | null;
  receipt: ScoreReceipt | null;
  location: ResultLocation | null;
  tract: TractScores | null;
  /** building, census_exact, place, zip_centroid or none; null in files without it. */
  matchLevel: string | null;
  /** Whether an occupant source covers the address; null in files that do not say. */
  occupantCoverage: OccupantCoverage | null;
}

type Line = Record<string, unknown>;

function objectOr<T>(value: unknown): T | null {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as T) : null;
}

function scoreOr(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The group's peril scores: a `perils` object, else flat XXXX_Score fields; null when neither is there. */
function perilsOf(line: Line): Record<string, number | null> | null {
  const nested = objectOr<Record<string, unknown>>(line.perils);
  const source = nested ?? line;
  const fields = HAZARDS.map((h) => `${h.code}_Score`);
  if (!fields.some((field) => field in source)) return null;
  return Object.fromEntries(fields.map((field) => [field, scoreOr(source[field])]));
}

/** The line's occupant coverage; a line whose occupant_count is null (unknown) was not covered. */
function coverageOf(line: Line): OccupantCoverage | null {
  const given = objectOr<OccupantCoverage>(line.occupant_coverage);
  if (given && typeof given.covered === 'boolean') return given;
  if ('occupant_count' in line && line.occupant_count === null) return { covered: false, source: null, covers: '', photos: false };
  return null;
}

function matchLevelOf(line: Line): string | null {
  const level = line.match_level ?? objectOr<Line>(line.location)?.match_level;
  return typeof level === 'string' && level ? level : null;
}

/**
 * Address groups of a JSON Lines detailed export, in file order: a line with an address starts a
 * group (like the SPEC CSV's rows), so one line per address and one per occupant read the same.
 */
export function groupDetails(text: string): GroupDetails[] {
  const groups: GroupDetails[] = [];
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    let line: Line | null;
    try {
      line = objectOr<Line>(JSON.parse(raw));
    } catch {
      line = null;
    }
    if (!line || typeof line.address !== 'string' || !line.address.trim()) continue;
    groups.push({
      perils: perilsOf(line),
      ratings: objectOr(line.ratings),
      receipt: objectOr(line.receipt),
      location: objectOr(line.location),
      tract: objectOr(line.tract),
      matchLevel: matchLevelOf(line),
      occupantCoverage: coverageOf(line),
    });
  }
  return groups;
}

const detailedApi = api.injectEndpoints({
  endpoints: (build) => ({
    exportDetails: build.query<GroupDetails[], string>({
      query: (filename) => ({
        url: detailedExportPath(filename, 'jsonl'),
        responseHandler: (response) => (response.ok ? response.text() : response.json().catch(() => null)),
      }),
      transformResponse: (text: string) => groupDetails(text),
      providesTags: (_result, _error, filename) => [{ type: 'Exports', id: filename }],
    }),
  }),
});

/**
 * One address group's peril scores, receipt and location from the detailed export; null while
 * it loads or when the server has none for this export (the page then shows what the CSV holds).
 */
export function useGroupDetails(filename: string, index: number): GroupDetails | null {
  const { data } = detailedApi.useExportDetailsQuery(filename || skipToken);
  return data?.[index] ?? null;
}
