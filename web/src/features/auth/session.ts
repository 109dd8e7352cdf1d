import { apiUrl } from '../../api/url';
import { fullPageNavigate } from '../../app/browser';
import type { SessionResponse } from '../../api/types';
import { sessionCleared, sessionReceived, type AuthState } from './authSlice';

type Dispatch = (action: unknown) => unknown;
type GetState = () => unknown;

function authOf(getState: GetState): AuthState {
  return (getState() as { auth: AuthState }).auth;
}

function isSession(body: unknown): body is SessionResponse {
  if (!body || typeof body !== 'object') return false;
  const b = body as Partial<SessionResponse>;
  return typeof b.access_token === 'string' && !!b.user && typeof b.user === 'object';
}

let refreshInFlight: Promise<string | null> | null = null;

async function requestRefresh(dispatch: Dispatch): Promise<string | null> {
  try {
    const response = await fetch(apiUrl('/api/auth/refresh'), {
      method: 'POST',
      credentials: 'include',
      headers: { Accept: 'application/json' },
    });
    if (!response.ok) {
      dispatch(sessionCleared());
      return null;
    }
    const body: unknown = await response.json().catch(() => null);
    if (!isSession(body)) {
      dispatch(sessionCleared());
      return null;
    }
    dispatch(sessionReceived({ session: body, receivedAt: Date.now() }));
    return body.access_token;
  } catch {
    dispatch(sessionCleared());
    return null;
  }
}

/**
 * Ask the server for a new access token with the HttpOnly refresh cookie.
 * Calls made while one refresh is under way share it (one request, one answer).
 * Resolves to the new access token, or null when signed out.
 */
export function refreshSession(dispatch: Dispatch): Promise<string | null> {
  if (!refreshInFlight) {
    refreshInFlight = requestRefresh(dispatch).finally(() => {
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
export async function getAccessToken(getState: GetState, dispatch: Dispatch): Promise<string | null> {
  const auth = authOf(getState);
  if (!auth.accessToken) return null;
  if (isTokenFresh(auth)) return auth.accessToken;
  return refreshSession(dispatch);
}

/** The first check on app start: 200 gives a session, anything else means signed out. */
export function initSession(dispatch: Dispatch): Promise<string | null> {
  return refreshSession(dispatch);
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
