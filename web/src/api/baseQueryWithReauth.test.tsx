import { screen, waitFor } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { makeStore } from '../app/store';
import { TOKEN_CACHE_MAX_MS, tokenLifetimeMs } from '../lib/auth/authSlice';
import { setSessionNavigator } from './session';
import { ANN, callCount, db } from '../test/db';
import { tokenFor } from '../test/handlers';
import { renderApp, signedInState } from '../test/render';
import { server } from '../test/server';
import { api } from './api';

/** A store signed in with a token the server no longer accepts. */
function storeWithRevokedToken() {
  const state = signedInState(ANN, { token: 'revoked-token' });
  return makeStore(state);
}

describe('baseQueryWithReauth', () => {
  it('on a 401 refreshes once and retries the request with the new token', async () => {
    db.refreshCookie = ANN.email;
    const seen: (string | null)[] = [];
    server.events.on('request:start', ({ request }) => {
      if (request.url.endsWith('/api/auth/get-search-stats')) seen.push(request.headers.get('Authorization'));
    });
    const store = storeWithRevokedToken();
    const result = await store.dispatch(api.endpoints.getSearchStats.initiate());
    server.events.removeAllListeners();

    expect(result.data?.current_month_searches).toBe(3);
    expect(callCount('/api/auth/refresh')).toBe(1);
    expect(callCount('/api/auth/get-search-stats')).toBe(2);
    expect(seen[0]).toBe('Bearer revoked-token');
    expect(seen[1]).toBe(`Bearer ${store.getState().auth.accessToken}`);
    expect(seen[1]).not.toBe(seen[0]);
  });

  it('retries only once: a second 401 is returned, not looped', async () => {
    db.refreshCookie = ANN.email;
    server.use(http.get('/api/auth/get-search-stats', () => HttpResponse.json({ status: 'error', error: 'no' }, { status: 401 })));
    const store = storeWithRevokedToken();
    const result = await store.dispatch(api.endpoints.getSearchStats.initiate());
    expect(result.error).toMatchObject({ status: 401 });
    expect(callCount('/api/auth/refresh')).toBe(1);
  });

  it('when the refresh fails, clears the session and navigates to /login', async () => {
    db.refreshCookie = null;
    const navigate = vi.fn();
    setSessionNavigator(navigate);
    const store = storeWithRevokedToken();
    const result = await store.dispatch(api.endpoints.getSearchStats.initiate());
    expect(result.error).toMatchObject({ status: 401 });
    expect(store.getState().auth.user).toBeNull();
    expect(store.getState().auth.accessToken).toBeNull();
    expect(store.getState().auth.role).toBe('user');
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(navigate.mock.calls[0]?.[0]).toBe('/login');
  });

  it('signs out to /login from a private page when the refresh fails (whole app)', async () => {
    db.refreshCookie = null;
    renderApp({ route: '/data-processing', preloadedState: signedInState(ANN, { token: 'revoked-token' }) });
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/login$/));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(JSON.parse(screen.getByTestId('location').getAttribute('data-state')!)).toMatchObject({
      from: { pathname: '/data-processing' },
    });
  });

  it('concurrent 401s share one refresh', async () => {
    db.refreshCookie = ANN.email;
    server.use(
      http.post('/api/auth/refresh', async () => {
        db.calls['/api/auth/refresh'] = (db.calls['/api/auth/refresh'] ?? 0) + 1;
        await delay(30);
        const token = tokenFor(ANN);
        return HttpResponse.json({ status: 'success', access_token: token, token_type: 'bearer', expires_in: 900, user: ANN });
      }),
    );
    const store = storeWithRevokedToken();
    const [a, b, c] = await Promise.all([
      store.dispatch(api.endpoints.getSearchStats.initiate()),
      store.dispatch(api.endpoints.getMe.initiate()),
      store.dispatch(api.endpoints.getUserInfo.initiate(ANN.uid)),
    ]);
    expect(a.data?.total_searches).toBe(12);
    expect(b.data?.email).toBe(ANN.email);
    expect(c.data?.role).toBe('user');
    expect(callCount('/api/auth/refresh')).toBe(1);
  });

  it('refreshes before the request when the cached token is older than its lifetime', async () => {
    db.refreshCookie = ANN.email;
    const oldToken = tokenFor(ANN); // still accepted by the server, but too old to use
    const store = makeStore(signedInState(ANN, { token: oldToken, tokenAgeMs: 16 * 60 * 1000 }));
    const seen: (string | null)[] = [];
    server.events.on('request:start', ({ request }) => {
      if (request.url.endsWith('/api/auth/me')) seen.push(request.headers.get('Authorization'));
    });
    await store.dispatch(api.endpoints.getMe.initiate());
    server.events.removeAllListeners();
    expect(callCount('/api/auth/refresh')).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]).not.toBe(`Bearer ${oldToken}`);
  });

  it('uses the cached token without refreshing while it is fresh', async () => {
    const store = makeStore(signedInState(ANN));
    const token = store.getState().auth.accessToken;
    await store.dispatch(api.endpoints.getMe.initiate());
    expect(callCount('/api/auth/refresh')).toBe(0);
    expect(store.getState().auth.accessToken).toBe(token);
  });

  it('does not retry the login call on 401 (wrong password is not an expired session)', async () => {
    const store = makeStore(signedInState(ANN, { token: 'revoked-token' }));
    const result = await store.dispatch(
      api.endpoints.login.initiate({ email: ANN.email, password: 'nope', remember_me: false }),
    );
    expect(result.error).toMatchObject({ status: 401 });
    expect(callCount('/api/auth/refresh')).toBe(0);
  });
});

describe('token lifetime', () => {
  it('is min(50 minutes, expires_in)', () => {
    expect(tokenLifetimeMs(900)).toBe(900_000);
    expect(tokenLifetimeMs(7200)).toBe(TOKEN_CACHE_MAX_MS);
    expect(TOKEN_CACHE_MAX_MS).toBe(50 * 60 * 1000);
    expect(tokenLifetimeMs(undefined)).toBe(TOKEN_CACHE_MAX_MS);
  });

  it('a session from the server expires after expires_in', async () => {
    db.refreshCookie = ANN.email;
    const store = makeStore();
    const before = Date.now();
    const { refreshSession } = await import('./session');
    await refreshSession(store);
    const { tokenExpiresAt, initialized, user } = store.getState().auth;
    expect(initialized).toBe(true);
    expect(user?.email).toBe(ANN.email);
    expect(tokenExpiresAt! - before).toBeGreaterThanOrEqual(900_000);
    expect(tokenExpiresAt! - before).toBeLessThan(900_000 + 5_000);
  });
});

describe('the session check of a signed-out visitor', () => {
  it('reads 204 (no refresh cookie) as signed out, with no error logged and no redirect', async () => {
    db.refreshCookie = null;
    const statuses: number[] = [];
    server.events.on('response:mocked', ({ request, response }) => {
      if (request.url.endsWith('/api/auth/refresh')) statuses.push(response.status);
    });
    const consoleError = vi.spyOn(console, 'error');
    const navigate = vi.fn();
    setSessionNavigator(navigate);
    const store = makeStore();
    const result = await store.dispatch(api.endpoints.restoreSession.initiate());
    server.events.removeAllListeners();

    expect(statuses).toEqual([204]);
    expect(result).toMatchObject({ data: null });
    expect(store.getState().auth).toMatchObject({ initialized: true, user: null, accessToken: null });
    expect(navigate).not.toHaveBeenCalled();
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('a public page renders for a signed-out visitor after one quiet session check', async () => {
    db.refreshCookie = null;
    const consoleError = vi.spyOn(console, 'error');
    renderApp({ route: '/about' });
    await waitFor(() => expect(callCount('/api/auth/refresh')).toBe(1));
    expect(await screen.findByRole('heading', { level: 1 })).toBeInTheDocument();
    expect(screen.getByTestId('location')).toHaveTextContent(/^\/about$/);
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('a revoked session (401) also ends signed out', async () => {
    db.refreshCookie = 'nobody@example.com';
    const store = makeStore();
    const result = await store.dispatch(api.endpoints.restoreSession.initiate());
    expect(result).toMatchObject({ data: null });
    expect(store.getState().auth).toMatchObject({ initialized: true, user: null });
  });
});
