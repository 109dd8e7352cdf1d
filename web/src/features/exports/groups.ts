import Papa from 'papaparse';
import { parseAddressText } from '../search/resultView';

export type Cell = string | number | boolean | null;
export type ExportRow = Record<string, Cell>;

export const EXPECTED_COLUMNS = [
  'address', 'name', 'vicinity', 'types', 'lat', 'lng', 'business_status', 'Total_Score', 'Top3_Scores_Combined', 'naics_code',
];

export interface AddressGroup {
  key: string;
  mainAddress: string;
  buildingDetails: [string, string][];
  riskScores: { total: number; top3: string };
  occupants: ExportRow[];
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
  if (fatal) throw new Error(`CSV Parsing Error: ${fatal.message}`);
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
        riskScores: { total: Number(row.Total_Score) || 0, top3: String(row.Top3_Scores_Combined ?? '') },
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

function isEmptyOccupant(row: ExportRow): boolean {
  return row.name === 'NA' || row.name === null || row.name === undefined || row.name === '';
}

/** NA or N/A display as a dash (SPEC §2). */
export function display(value: Cell | undefined): string {
  if (value === null || value === undefined || value === '' || value === 'NA' || value === 'N/A') return '—';
  return String(value);
}
