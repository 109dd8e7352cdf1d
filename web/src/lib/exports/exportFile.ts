import { skipToken } from '@reduxjs/toolkit/query';
import { useMemo } from 'react';
import { api } from '../../api/api';
import { failureText } from '../../api/errors';
import { CsvUnreadable, groupRows, parseExportCsv, type AddressGroup, type ExportRow } from './groups';

/** SPEC §7 /api/view-export: the CSV text, or JSON `{status, content}` from older servers. */
type ExportContent = { csv: string } | { rows: ExportRow[] } | { unreadable: true };

export const FILE_UNREADABLE = 'This export could not be read in the browser. Download the CSV to open it in a spreadsheet.';

async function csvOrJson(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (response.ok && type.includes('csv')) return { csv: text };
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return response.ok ? { unreadable: true } : text;
  }
}

function toContent(body: unknown): ExportContent {
  if (body && typeof body === 'object') {
    if ('csv' in body && typeof body.csv === 'string') return { csv: body.csv };
    const json = body as { status?: string; content?: unknown };
    if (json.status === 'success' && Array.isArray(json.content)) return { rows: json.content as ExportRow[] };
  }
  return { unreadable: true };
}

const exportFileApi = api.injectEndpoints({
  endpoints: (build) => ({
    viewExport: build.query<ExportContent, string>({
      query: (filename) => ({
        url: `/api/view-export/${encodeURIComponent(filename)}`,
        headers: { Accept: 'text/csv, application/json' },
        responseHandler: csvOrJson,
      }),
      transformResponse: toContent,
      providesTags: (_result, _error, filename) => [{ type: 'Exports', id: filename }],
    }),
  }),
});

export type ExportLoad =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; message: string; unreadable: boolean }
  | { state: 'loaded'; groups: AddressGroup[]; dropped: number };

function groupsOf(content: ExportContent): ExportLoad {
  try {
    if ('unreadable' in content) throw new CsvUnreadable();
    const { groups, dropped } = groupRows('csv' in content ? parseExportCsv(content.csv) : content.rows);
    return { state: 'loaded', groups, dropped };
  } catch (failure) {
    if (!(failure instanceof CsvUnreadable)) throw failure;
    return { state: 'error', message: FILE_UNREADABLE, unreadable: true };
  }
}

/**
 * An export's address groups, loaded when `filename` is given (null loads nothing), through the
 * API client (so an expired token is refreshed); `reload` fetches the file again. `reuseCached`
 * takes the copy another page has just read instead of reading it again.
 */
export function useExportFile(
  filename: string | null,
  { reuseCached = false }: { reuseCached?: boolean } = {},
): { load: ExportLoad; reload: () => void } {
  const { currentData, error, isFetching, refetch } = exportFileApi.useViewExportQuery(filename ?? skipToken, {
    refetchOnMountOrArgChange: !reuseCached,
  });
  const load = useMemo((): ExportLoad => {
    if (!filename) return { state: 'idle' };
    if (isFetching) return { state: 'loading' };
    if (error) return { state: 'error', message: failureText(error), unreadable: false };
    return currentData ? groupsOf(currentData) : { state: 'loading' };
  }, [filename, currentData, error, isFetching]);
  return { load, reload: () => void refetch() };
}
