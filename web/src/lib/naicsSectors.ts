import type { Occupant } from '../api/types';

/**
 * The 20 NAICS 2022 sectors (level 2 of the naics_2022.csv the server loads): a code's first
 * two digits name its sector; manufacturing, retail and transportation span two or three.
 */
const SECTORS: [string, string][] = [
  ['11', 'Agriculture, Forestry, Fishing and Hunting'],
  ['21', 'Mining, Quarrying, and Oil and Gas Extraction'],
  ['22', 'Utilities'],
  ['23', 'Construction'],
  ['31-33', 'Manufacturing'],
  ['42', 'Wholesale Trade'],
  ['44-45', 'Retail Trade'],
  ['48-49', 'Transportation and Warehousing'],
  ['51', 'Information'],
  ['52', 'Finance and Insurance'],
  ['53', 'Real Estate and Rental and Leasing'],
  ['54', 'Professional, Scientific, and Technical Services'],
  ['55', 'Management of Companies and Enterprises'],
  ['56', 'Administrative and Support and Waste Management and Remediation Services'],
  ['61', 'Educational Services'],
  ['62', 'Health Care and Social Assistance'],
  ['71', 'Arts, Entertainment, and Recreation'],
  ['72', 'Accommodation and Food Services'],
  ['81', 'Other Services (except Public Administration)'],
  ['92', 'Public Administration'],
];

const SECTOR_OF_PREFIX = new Map<string, string>();
for (const [code] of SECTORS) {
  const [from, to = from] = code.split('-').map(Number) as [number, number?];
  for (let prefix = from; prefix <= to; prefix += 1) SECTOR_OF_PREFIX.set(String(prefix), code);
}
const TITLES = new Map(SECTORS);

/** The sector code ('54', '31-33') of a NAICS code, or null when it names none. */
export function sectorOf(naicsCode: string | null | undefined): string | null {
  const prefix = String(naicsCode ?? '').trim().slice(0, 2); // 'NA' and 'N/A' name no sector
  return SECTOR_OF_PREFIX.get(prefix) ?? null;
}

export interface SectorSummary {
  /** null: no occupant carries a NAICS code of a known sector. */
  sector: string | null;
  title: string | null;
  count: number;
  of: number;
}

/** The sector most of a building's occupants are in (ties: the lower code). */
export function mostCommonSector(occupants: Pick<Occupant, 'naics_code'>[]): SectorSummary {
  const counts = new Map<string, number>();
  for (const occupant of occupants) {
    const sector = sectorOf(occupant.naics_code);
    if (sector) counts.set(sector, (counts.get(sector) ?? 0) + 1);
  }
  let best: [string, number] | null = null;
  for (const entry of [...counts].sort(([a], [b]) => a.localeCompare(b))) {
    if (!best || entry[1] > best[1]) best = entry;
  }
  return {
    sector: best?.[0] ?? null,
    title: best ? (TITLES.get(best[0]) ?? null) : null,
    count: best?.[1] ?? 0,
    of: occupants.length,
  };
}

/** 'Most common: 54 Professional, ... (12 of 24)'; 'None' without occupants; 'N/A' when none is classified. */
export function describeSector(summary: SectorSummary): string {
  if (summary.of === 0) return 'None';
  if (!summary.sector) return 'N/A';
  return `Most common: ${summary.sector} ${summary.title ?? ''} (${summary.count} of ${summary.of})`.replace('  ', ' ');
}
