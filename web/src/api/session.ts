import type { BaseQueryApi } from '@reduxjs/toolkit/query';
import { fullPageNavigate } from '../app/browser';
import { sessionCleared, sessionReceived, type AuthState } from '../lib/auth/authSlice';
import { rawBaseQuery, type AuthExtra } from './rawBaseQuery';
import type { SessionResponse } from './types';

/** What the session code needs of a store: a base query's api, or the store itself. */
export type SessionApi = Pick<BaseQueryApi, 'dispatch' | 'getState'>;
type GetState = SessionApi['getState'];

function authOf(getState: GetState): AuthState {
  return (getState() as { auth: AuthState }).auth;
}

function isSession(body: unknown): body is SessionResponse {
  if (!body || typeof body !== 'object') return false;
  const b = body as Partial<SessionResponse>;
  return typeof b.access_token === 'string' && !!b.user && typeof b.user === 'object';
}

let refreshInFlight: Promise<string | null> | null = null;

/**
 * POST /api/auth/refresh through the API client. 200 with a session signs in; 204 (no refresh
 * cookie: a signed-out visitor, a normal state) and 401 (a session that expired or was revoked)
 * both leave the app signed out.
 */
async function requestRefresh({ dispatch, getState }: SessionApi): Promise<string | null> {
  // Its own signal: the refresh is shared, so one caller giving up must not cancel it for the others.
  const controller = new AbortController();
  const result = await rawBaseQuery(
    { url: '/api/auth/refresh', method: 'POST' },
    {
      dispatch,
      getState,
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
      extra: { token: null } satisfies AuthExtra,
      endpoint: 'refreshSession',
      type: 'mutation',
    },
    {},
  );
  if (result.error || !isSession(result.data)) {
    dispatch(sessionCleared());
    return null;
  }
  dispatch(sessionReceived({ session: result.data, receivedAt: Date.now() }));
  return result.data.access_token;
}

/**
 * Ask the server for a new access token with the HttpOnly refresh cookie.
 * Calls made while one refresh is under way share it (one request, one answer).
 * Resolves to the new access token, or null when signed out.
 */
export function refreshSession(api: SessionApi): Promise<string | null> {
  if (!refreshInFlight) {
    refreshInFlight = requestRefresh(api).finally(() => {
      refreshInFlight = null;
    });
  }
  return refreshInFlight;
}

/** True when the cached token may still be used at `now`. */
export function isTokenFresh(auth: AuthState, now: number = Date.now()): boolean {
  return !!auth.accessToken && auth.tokenExpiresAt !== null && now < auth.tokenExpiresAt;
}

/**
 * The access token to send with a request: the cached one while it is fresh,
 * a refreshed one when it is older than its lifetime, null when signed out.
 */
export async function getAccessToken(api: SessionApi): Promise<string | null> {
  const auth = authOf(api.getState);
  if (!auth.accessToken) return null;
  if (isTokenFresh(auth)) return auth.accessToken;
  return refreshSession(api);
}

export interface NavigateOptions {
  replace?: boolean;
  state?: unknown;
}
type Navigator = (to: string, options?: NavigateOptions) => void;

let navigator: Navigator | null = null;

/** The router registers its navigate function so code outside React can redirect. */
export function setSessionNavigator(fn: Navigator | null): void {
  navigator = fn;
}

/** Send the browser to /login, remembering where it was. */
export function redirectToLogin(from?: { pathname: string; search?: string; hash?: string }): void {
  if (navigator) {
    navigator('/login', { replace: true, state: from ? { from } : undefined });
  } else if (typeof window !== 'undefined') {
    fullPageNavigate('/login');
  }
}

/** Test helper: forget any refresh in flight and the registered navigator. */
export function resetSessionModule(): void {
  refreshInFlight = null;
  navigator = null;
}
