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

export const UNREACHABLE = 'Could not reach PerilScope. Check your connection and try again.';
export const TIMED_OUT = 'The server took too long to answer. Please try again in a few minutes.';
export const SERVER_FAILED = 'The server ran into a problem. Please try again in a few minutes, or contact support if this persists.';
export const UNREADABLE = "The server's answer could not be read. Please try again in a few minutes.";
export const SESSION_ENDED = 'Your session has ended. Please sign in again.';
export const NOT_ALLOWED = 'Your account is not allowed to do this.';

/**
 * A failed request as a sentence for the user: the server's own message for a refusal (4xx),
 * else what happened and what to do. Never a browser's internal text ("TypeError: Failed to
 * fetch") or a parser's.
 */
export function failureText(error: AnyError): string {
  const status = errorStatus(error);
  if (status === 'FETCH_ERROR') return UNREACHABLE;
  if (status === 'TIMEOUT_ERROR') return TIMED_OUT;
  if (status === 'PARSING_ERROR') {
    const original = (error as { originalStatus?: number }).originalStatus ?? 0;
    return original >= 500 ? SERVER_FAILED : UNREADABLE;
  }
  if (typeof status === 'number' && status >= 500) return SERVER_FAILED;
  const fromServer = errorMessage(error, '');
  if (fromServer) return fromServer;
  if (status === 'CUSTOM_ERROR') {
    const text = (error as { error?: unknown }).error;
    if (typeof text === 'string' && text) return text;
  }
  if (status === 401) return SESSION_ENDED;
  if (status === 403) return NOT_ALLOWED;
  if (typeof status === 'number') return `The server refused the request (status ${status}). Please check what you entered and try again.`;
  return 'Something went wrong. Please try again in a few minutes.';
}
