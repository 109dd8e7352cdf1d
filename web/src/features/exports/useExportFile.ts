import { useEffect, useState } from 'react';
import { apiUrl } from '../../api/url';
import { useAppSelector } from '../../app/hooks';
import { selectAccessToken } from '../auth/authSlice';
import { groupRows, parseExportCsv, type AddressGroup } from './groups';

export type ExportLoad =
  | { state: 'idle' }
  | { state: 'loading' }
  | { state: 'error'; message: string }
  | { state: 'loaded'; groups: AddressGroup[]; dropped: number };

export async function authorizedFetch(path: string, token: string | null): Promise<Response> {
  return fetch(apiUrl(path), { headers: token ? { Authorization: `Bearer ${token}` } : {}, credentials: 'include' });
}

/** SPEC §7 /api/view-export: CSV text, or JSON {status, content} from older servers, else an error. */
async function readExport(response: Response): Promise<{ groups: AddressGroup[]; dropped: number }> {
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok) {
    const body = type.includes('json') ? ((await response.json()) as { error?: string }) : {};
    throw new Error(body.error ?? 'Failed to load or process file content.');
  }
  if (type.includes('csv')) return groupRows(parseExportCsv(await response.text()));
  const body = (await response.json().catch(() => ({}))) as { status?: string; content?: unknown; error?: string };
  if (body.status === 'success' && Array.isArray(body.content)) return groupRows(body.content);
  throw new Error(body.error ?? 'Failed to load file content or invalid format');
}

/**
 * An export's address groups, loaded when `filename` is given (null loads nothing). Changing
 * `reloadKey` loads it again.
 */
export function useExportFile(filename: string | null, reloadKey = 0): ExportLoad {
  const token = useAppSelector(selectAccessToken);
  const [load, setLoad] = useState<ExportLoad>(filename ? { state: 'loading' } : { state: 'idle' });

  useEffect(() => {
    if (!filename) return undefined;
    let cancelled = false;
    setLoad({ state: 'loading' });
    (async () => {
      try {
        const { groups, dropped } = await readExport(await authorizedFetch(`/api/view-export/${encodeURIComponent(filename)}`, token));
        if (!cancelled) setLoad({ state: 'loaded', groups, dropped });
      } catch (error) {
        if (!cancelled) setLoad({ state: 'error', message: error instanceof Error ? error.message : 'Could not load file content.' });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [filename, token, reloadKey]);

  return load;
}
