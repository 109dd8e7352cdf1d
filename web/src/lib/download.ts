import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { useState } from 'react';
import { api } from '../api/api';

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

/** Hand a blob to the browser as a saved file: object URL → a[download] → click. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Let the browser start the download before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

interface FileBody {
  kind: 'file';
  blob: Blob;
  filename: string | null;
}

function isFileBody(body: unknown): body is FileBody {
  return !!body && typeof body === 'object' && (body as { kind?: unknown }).kind === 'file';
}

/** application/json (or +json) is a message; JSON Lines (application/x-ndjson, jsonl) is a file. */
export function isJsonMessage(contentType: string): boolean {
  return /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i.test(contentType.trim());
}

/**
 * A file as the body of a 200 answer; a JSON answer (an error, or an old server's
 * `{status: "error"}` with 200) and every error status are read as JSON or text.
 */
async function fileOrMessage(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  if (response.ok && !isJsonMessage(type)) {
    return { kind: 'file', blob: await response.blob(), filename: response.headers.get('Content-Disposition') } satisfies FileBody;
  }
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const downloadApi = api.injectEndpoints({
  endpoints: (build) => ({
    /**
     * GET a file through the API client (bearer token, refresh and retry on a 401, like every
     * call) and save it. The blob never enters the store: the result is the saved file's name.
     */
    downloadFile: build.mutation<string, { path: string; fallbackName: string }>({
      queryFn: async ({ path, fallbackName }, _api, _extra, baseQuery) => {
        const result = await baseQuery({ url: path, headers: { Accept: '*/*' }, responseHandler: fileOrMessage });
        if (result.error) return { error: result.error as FetchBaseQueryError };
        if (!isFileBody(result.data)) {
          const error: FetchBaseQueryError = { status: 'CUSTOM_ERROR', error: 'Unknown download error', data: result.data };
          return { error };
        }
        const filename = filenameFrom(result.data.filename, fallbackName);
        saveBlob(result.data.blob, filename);
        return { data: filename };
      },
    }),
  }),
});

/** Download a file through the API: busy while it runs, and the failure (if any) for the page to word. */
export function useDownload() {
  const [trigger, { isLoading }] = downloadApi.useDownloadFileMutation();
  const [error, setError] = useState<unknown>(null);
  async function download(path: string, fallbackName: string): Promise<boolean> {
    setError(null);
    try {
      await trigger({ path, fallbackName }).unwrap();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    }
  }
  return { busy: isLoading, error, download };
}
