import { api } from '../../api/api';

/** One row of GET /api/exports/{filename}/rows (entrypoints/http/export_rows_schema.py); null is unknown. */
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
  /** The user's own columns as uploaded, in the page's `columns` order. */
  values: (string | null)[];
  /** The value of the page's `sort` column (null unsorted, or unknown). */
  sort_score: number | null;
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
  states: FilterChoice[];
  statuses: FilterChoice[];
  low_confidence: FilterChoice[];
}

export interface ExportRowsPage {
  export: string;
  offset: number;
  limit: number;
  total_rows: number;
  total_matching: number;
  /** The upload's own column names: each row's `values` in this order. */
  columns: string[];
  rows: ExportRow[];
  filters: FilterChoices;
  sort: string | null;
  order: 'asc' | 'desc';
}

/** The filters and sort as the endpoint takes them; '' is any value (or input order, for `sort`). */
export interface RowFilter {
  match_level: string;
  county: string;
  state: string;
  rating: string;
  status: string;
  low_confidence: string;
  /** A text the address holds, in any case. */
  search: string;
  /** Total_Score or a hazard's `<code>_Score`; '' keeps the upload's order. */
  sort: string;
  order: 'asc' | 'desc';
}

export const NO_FILTER: RowFilter = {
  match_level: '', county: '', state: '', rating: '', status: '', low_confidence: '', search: '', sort: '', order: 'desc',
};

/** Whether anything differs from the whole export in the upload's order. */
export function isFiltered(filter: RowFilter): boolean {
  return (Object.keys(NO_FILTER) as (keyof RowFilter)[]).some((key) => key !== 'order' && filter[key] !== '');
}

export interface ExportRowsArgs extends Partial<RowFilter> {
  filename: string;
  offset: number;
  limit: number;
}

export function exportRowsPath({ filename, offset, limit, order, ...filter }: ExportRowsArgs): string {
  const query = new URLSearchParams({ offset: String(offset), limit: String(limit) });
  for (const [key, value] of Object.entries(filter)) if (value) query.set(key, value);
  if (filter.sort && order) query.set('order', order);
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
