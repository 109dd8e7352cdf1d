import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';

type AnyError = FetchBaseQueryError | SerializedError | undefined | null | unknown;

function pickString(obj: unknown, keys: readonly string[]): string | null {
  if (!obj || typeof obj !== 'object') return null;
  for (const key of keys) {
    const value = (obj as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}

/**
 * The human message the server put in an error answer
 * (`{"status":"error","error":"..."}`, or a framework's `detail`), else `fallback`.
 */
export function errorMessage(
  error: AnyError,
  fallback: string,
  keys: readonly string[] = ['error', 'detail'],
): string {
  if (!error || typeof error !== 'object') return fallback;
  if ('data' in error) {
    const fromBody = pickString((error as { data: unknown }).data, keys);
    if (fromBody) return fromBody;
  }
  return fallback;
}

export function errorStatus(error: AnyError): number | string | null {
  if (error && typeof error === 'object' && 'status' in error) {
    const status = (error as { status: unknown }).status;
    if (typeof status === 'number' || typeof status === 'string') return status;
  }
  return null;
}
