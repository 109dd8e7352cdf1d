import Papa from 'papaparse';
import type { Occupant } from '../../api/types';
import { isUnknown, parseAddressText, type ResultNavState } from '../resultView';

export type Cell = string | number | boolean | null;
export type ExportRow = Record<string, Cell>;

export const EXPECTED_COLUMNS = [
  'address', 'name', 'vicinity', 'types', 'lat', 'lng', 'business_status', 'Total_Score', 'Top3_Scores_Combined', 'naics_code',
];

export interface AddressGroup {
  key: string;
  mainAddress: string;
  buildingDetails: [string, string][];
  /** total: null when the row has none (shown as N/A or a dash, never 0). */
  riskScores: { total: number | null; top3: string };
  occupants: ExportRow[];
}

/**
 * The export's text is not a CSV the viewer can read. The parser's own message (e.g. "Unable to
 * auto-detect delimiting character") means nothing to a user, so it stays in `detail`.
 */
export class CsvUnreadable extends Error {
  constructor(readonly detail = '') {
    super('The export could not be read as CSV.');
  }
}

/** SPEC §5: header row required, empty lines skipped, values typed dynamically, headers trimmed. */
export function parseExportCsv(text: string): ExportRow[] {
  const parsed = Papa.parse<ExportRow>(text, {
    header: true,
    skipEmptyLines: true,
    dynamicTyping: true,
    transformHeader: (header) => header.trim(),
  });
  const fatal = parsed.errors.find((error) => error.type !== 'FieldMismatch' || error.code === 'TooManyFields');
  if (fatal) throw new CsvUnreadable(fatal.message);
  const missing = EXPECTED_COLUMNS.filter((column) => !(parsed.meta.fields ?? []).includes(column));
  if (missing.length) console.warn(`Export is missing expected columns: ${missing.join(', ')}`);
  return parsed.data;
}

/** SPEC §3: a row with an address starts a group; rows without one join it; earlier rows are dropped. */
export function groupRows(rows: ExportRow[]): { groups: AddressGroup[]; dropped: number } {
  const groups: AddressGroup[] = [];
  let dropped = 0;
  for (const row of rows) {
    const address = row.address === null || row.address === undefined ? '' : String(row.address).trim();
    if (address) {
      const text = parseAddressText(address.replace(/^'/, ''));
      groups.push({
        key: `${text.address}-${groups.length}`,
        mainAddress: text.address,
        buildingDetails: text.details,
        riskScores: { total: scoreCell(row.Total_Score), top3: String(row.Top3_Scores_Combined ?? '') },
        occupants: isEmptyOccupant(row) ? [] : [row],
      });
    } else if (groups.length > 0) {
      groups[groups.length - 1]!.occupants.push(row);
    } else {
      dropped += 1;
    }
  }
  return { groups, dropped };
}

/** A score cell: its number, or null when it is empty, missing or not a number. */
function scoreCell(value: Cell | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || !value.trim()) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

function isEmptyOccupant(row: ExportRow): boolean {
  return row.name === 'NA' || row.name === null || row.name === undefined || row.name === '';
}

/** NA or N/A display as a dash (SPEC §2). */
export function display(value: Cell | undefined): string {
  return isUnknown(value) ? '—' : String(value);
}

/**
 * A group's id for /search-result/{id} (SPEC §2: a group key plus an index). It names the export
 * file and the group's position, so the result page can load the group again after a reload.
 */
export function exportGroupId(filename: string, index: number): string {
  return `export:${filename}:${index}`;
}

export function parseExportGroupId(id: string): { filename: string; index: number } | null {
  const match = /^export:(.+):(\d+)$/.exec(id);
  return match ? { filename: match[1]!, index: Number(match[2]) } : null;
}

function text(value: Cell | undefined, fallback: string): string {
  return value === null || value === undefined || value === '' ? fallback : String(value);
}

/**
 * SPEC §2's navigation state for a group card's link to /search-result/{id}. Two fields depart
 * from SPEC on purpose (DESIGN.md: unknown is shown as unknown): vacancies come from the
 * 'Total Space Available' detail (SPEC §3), not from the parking area, and the photo count is 0,
 * because an export holds no photos.
 */
export function groupNavState(group: AddressGroup, id: string): ResultNavState {
  const space = group.buildingDetails.find(([key]) => key === 'Total Space Available')?.[1];
  const vacancies = Number.parseInt(space ?? '', 10);
  const occupants: Occupant[] = group.occupants.map((row) => ({
    name: text(row.name, 'NA'),
    vicinity: text(row.vicinity, 'NA'),
    types: text(row.types, 'NA'),
    business_status: text(row.business_status, 'NA'),
    lat: typeof row.lat === 'number' ? row.lat : null,
    lng: typeof row.lng === 'number' ? row.lng : null,
    naics_code: text(row.naics_code, 'N/A'),
    address: group.mainAddress,
  }));
  return {
    id,
    address: group.mainAddress,
    vacancies: Number.isNaN(vacancies) ? null : vacancies,
    photosCount: 0,
    dateLastUpdated: 'N/A', // the SPEC CSV carries no data dates; the detailed export's receipt does
    imageUrl: null,
    occupantDetails: occupants,
    totalScore: group.riskScores.total,
    top3ScoresCombined: group.riskScores.top3,
    naics_code: occupants[0]?.naics_code ?? 'N/A', // SPEC §2's field; the page shows the most common sector
    buildingDetails: group.buildingDetails,
  };
}
