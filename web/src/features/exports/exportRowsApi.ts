import { api } from '../../api/api';

/** One row of GET /api/exports/{filename}/rows (application/export_rows.py); null is unknown. */
export interface ExportRow {
  index: number;
  row: number | null;
  address: string;
  status: string | null;
  message: string | null;
  match_level: string | null;
  low_confidence: boolean | null;
  county_fips: string | null;
  county_name: string | null;
  county_state: string | null;
  total_score: number | null;
  rating: string | null;
  top_3: string | null;
  occupant_count: number | null;
  naics_codes: string | null;
}

export interface FilterChoice {
  value: string;
  label: string;
  rows: number;
}

export interface FilterChoices {
  match_levels: FilterChoice[];
  counties: FilterChoice[];
  ratings: FilterChoice[];
}

export interface ExportRowsPage {
  export: string;
  offset: number;
  limit: number;
  total_rows: number;
  total_matching: number;
  rows: ExportRow[];
  filters: FilterChoices;
}

/** The filters as the endpoint takes them; '' is any value. */
export interface RowFilter {
  match_level: string;
  county: string;
  rating: string;
}

export const NO_FILTER: RowFilter = { match_level: '', county: '', rating: '' };

export interface ExportRowsArgs extends RowFilter {
  filename: string;
  offset: number;
  limit: number;
}

export function exportRowsPath({ filename, offset, limit, ...filter }: ExportRowsArgs): string {
  const query = new URLSearchParams({ offset: String(offset), limit: String(limit) });
  for (const [key, value] of Object.entries(filter)) if (value) query.set(key, value);
  return `/api/exports/${encodeURIComponent(filename)}/rows?${query.toString()}`;
}

const exportRowsApi = api.injectEndpoints({
  endpoints: (build) => ({
    exportRows: build.query<ExportRowsPage, ExportRowsArgs>({
      query: exportRowsPath,
      // A page is small, but scrolling 100,000 rows asks for a thousand: the ones scrolled past go soon.
      keepUnusedDataFor: 20,
      providesTags: (_result, _error, args) => [{ type: 'Exports', id: args.filename }],
    }),
  }),
});

export const { useExportRowsQuery } = exportRowsApi;
