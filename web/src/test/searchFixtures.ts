import type { DatasetVersion, Occupant, OccupantCoverage, RecentSearch, ResultLocation, SearchResult } from '../api/types';

export const HAZARD_CODES = [
  'AVLN', 'CFLD', 'CWAV', 'DRGT', 'ERQK', 'HAIL', 'HWAV', 'HRCN', 'ISTM',
  'LNDS', 'LTNG', 'RFLD', 'SWND', 'TRND', 'TSUN', 'VLCN', 'WFIR', 'WNTW',
] as const;

export function occupant(overrides: Partial<Occupant> = {}): Occupant {
  return {
    name: 'ACME INC', vicinity: '701 5th Ave', types: ['establishment', 'point_of_interest'],
    business_status: 'OPERATIONAL', lat: 47.6, lng: -122.3, naics_code: '518210',
    naics_title: 'Computing Infrastructure Providers', photo_reference: null, ...overrides,
  };
}

/** The receipt's datasets as the server names them (adapters/reference_data/readers.py). */
export const DATASETS: DatasetVersion[] = [
  { dataset: 'nri_counties', version: 'NRI v1.20.0 (December 2025)', as_of: '2025-12' },
  { dataset: 'zip_county_shares', version: 'HUD-USPS ZIP–County crosswalk 2023 Q1', as_of: '2023-03' },
  { dataset: 'businesses', version: 'Seattle 2026-08-02 + DataSF sample', as_of: '2026-08-02' },
];

/** The embedded registries cover Seattle (photos from a places provider, as when one is configured). */
export const SEATTLE_COVERAGE: OccupantCoverage = {
  covered: true, source: 'seattle_business_licences',
  covers: 'Occupant data: City of Seattle business licences (2026-08-02); DataSF sample (San Francisco)', photos: true,
};

/** An address no occupant source covers (Miami): occupants unknown, never 0. */
export const NOT_COVERED_COVERAGE: OccupantCoverage = { ...SEATTLE_COVERAGE, covered: false, source: null };

/** A sure location: a ZIP code inside one county. */
export function kingCounty(overrides: Partial<ResultLocation> = {}): ResultLocation {
  return {
    method: 'zip', county_fips: '53033', county_name: 'King', state: 'WA', confidence: 1, low_confidence: false,
    alternatives: [], notes: [], source: 'embedded', tract_geoid: '53033008100', ...overrides,
  };
}

/** A ZIP code shared by two counties, most of its addresses in Gwinnett: the county is uncertain. */
export function uncertainLocation(): ResultLocation {
  return {
    method: 'zip_share', county_fips: '13135', county_name: 'Gwinnett', state: 'GA', confidence: 0.62, low_confidence: true,
    alternatives: [
      { county_fips: '13121', county_name: 'Fulton', state: 'GA', share: 0.38, Total_Score: 87.5, risk_rating: 'Relatively High' },
      { county_fips: '13117', county_name: 'Forsyth', state: 'GA', share: 0.004, Total_Score: null, risk_rating: null },
    ],
    notes: ['ZIP code 30097 spans 3 counties; most of its addresses are in Gwinnett County.'],
    source: 'embedded', tract_geoid: null,
  };
}

/** A stored search result as the server answers it: Avalanche does not apply (null), the rest score. */
export function searchResult(id: string, street: string, overrides: Partial<SearchResult> = {}): SearchResult {
  const perils: Record<string, number | null> = Object.fromEntries(
    HAZARD_CODES.map((code, i) => [`${code}_Score`, code === 'AVLN' ? null : 40 + i]),
  );
  perils.Total_Score = 99.7;
  return {
    search_id: id,
    query: `${street}, Seattle, WA 98104`,
    address: `${street} Year Built: 1985\nProperty Type: Large Office\nFloors: 76\nTotal Space Available: Unknown\nRental Rate: Unknown`,
    timestamp: '2026-11-20T10:00:00Z',
    occupants: [occupant()],
    total_results: 1,
    occupant_coverage: SEATTLE_COVERAGE,
    perils,
    ratings: { AVLN: 'Not Applicable', ERQK: 'Very High', Total: 'Very High' },
    Total_Score: 99.7,
    Top3_Scores_Combined: 'Earthquake: 99.9\nVolcanic Activity: 98.1\nLandslide: 97.4',
    naics_code: '518210',
    types: ['establishment', 'point_of_interest'],
    business_status: 'OPERATIONAL',
    extra_info: { photos: [{ photo_reference: 'ref-1' }, { photo_reference: 'ref-2' }], rating: null },
    vacancies: null,
    rental_rate: null,
    receipt: {
      nri_version: '1.20.0', county_fips: '53033', county_name: 'King', state: 'WA', geography_level: 'county',
      geocode_match: 'building', lat: 47.6, lng: -122.3,
      providers: { geocoder: 'embedded', places: 'seattle_business_licences', perils: 'fema_nri', property_records: 'seattle_buildings' },
      scored_at: '2026-11-20T10:00:00Z',
      datasets: DATASETS,
    },
    location: kingCounty(),
    ...overrides,
  };
}

export function recentSearch(id: string, street: string, overrides: Partial<SearchResult> = {}): RecentSearch {
  const data = searchResult(id, street, overrides);
  return {
    search_id: id, address: data.query, timestamp: data.timestamp, total_results: data.total_results,
    filtered_results: data.occupants, result_data: data,
  };
}

/** A batch file's entry in recent searches (SPEC §4: never listed). */
export function batchSearch(id: string, filename: string): RecentSearch {
  return { ...recentSearch(id, filename), address: filename };
}

/** A search that failed: no result data (SPEC §8: shown as 'Search Failed'). */
export function failedSearch(id: string, address: string): RecentSearch {
  return { search_id: id, address, timestamp: '2026-11-19T10:00:00Z', total_results: 0, filtered_results: [], result_data: null };
}
