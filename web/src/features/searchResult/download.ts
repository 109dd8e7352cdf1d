import { apiUrl } from '../../api/url';
import { getAccessToken, refreshSession } from '../auth/session';

type Dispatch = (action: unknown) => unknown;
type GetState = () => unknown;

/** The file name from a Content-Disposition header, else `fallback`. */
export function filenameFrom(disposition: string | null, fallback: string): string {
  const match = disposition?.match(/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i);
  if (!match?.[1]) return fallback;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

function serverError(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; detail?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.detail === 'string') return parsed.detail;
  } catch {
    /* not JSON */
  }
  return null;
}

/**
 * GET `path` with the session's bearer token (refreshed once on a 401, like every API call),
 * then save the body under the server's file name: fetch → blob → object URL → a[download].
 */
export async function downloadFile(path: string, fallbackName: string, getState: GetState, dispatch: Dispatch): Promise<void> {
  const get = (token: string | null) =>
    fetch(apiUrl(path), { headers: token ? { Authorization: `Bearer ${token}` } : {}, credentials: 'include' });
  let response = await get(await getAccessToken(getState, dispatch));
  if (response.status === 401) {
    const token = await refreshSession(dispatch);
    if (token) response = await get(token);
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    throw new Error(serverError(text) ?? `the server answered ${response.status}`);
  }
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filenameFrom(response.headers.get('Content-Disposition'), fallbackName);
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Let the browser start the download before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
