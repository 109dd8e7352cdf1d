import { http, HttpResponse, type HttpResponseResolver } from 'msw';
import type { User } from '../api/types';
import { db } from './db';

const err = (status: number, error: string) => HttpResponse.json({ status: 'error', error }, { status });

/** token -> email of the signed-in user. */
export const tokens = new Map<string, string>();

function issueSession(user: User) {
  db.tokenCounter += 1;
  const token = `token-${db.tokenCounter}`;
  tokens.set(token, user.email);
  db.refreshCookie = user.email;
  return {
    status: 'success' as const,
    access_token: token,
    token_type: 'bearer',
    expires_in: 900,
    user,
  };
}

function bearerUser(request: Request): User | null {
  const header = request.headers.get('Authorization') ?? '';
  const token = header.startsWith('Bearer ') ? header.slice(7) : '';
  const email = tokens.get(token);
  if (!email) return null;
  return db.users.get(email)?.user ?? null;
}

function counted(path: string, resolver: HttpResponseResolver): HttpResponseResolver {
  return async (info) => {
    db.calls[path] = (db.calls[path] ?? 0) + 1;
    try {
      db.lastBodies[path] = await info.request.clone().json();
    } catch {
      db.lastBodies[path] = null;
    }
    return resolver(info);
  };
}

/** Give a token to a user directly (for tests that start signed in). */
export function tokenFor(user: User): string {
  db.tokenCounter += 1;
  const token = `seed-${db.tokenCounter}`;
  tokens.set(token, user.email);
  db.refreshCookie = user.email;
  return token;
}

export const handlers = [
  http.post(
    '/api/auth/login',
    counted('/api/auth/login', async ({ request }) => {
      const body = (await request.json()) as { email: string; password: string; remember_me: boolean };
      const record = db.users.get(body.email);
      if (!record || record.password !== body.password) return err(401, 'Invalid email or password');
      return HttpResponse.json(issueSession(record.user));
    }),
  ),
  http.post(
    '/api/auth/signup',
    counted('/api/auth/signup', async ({ request }) => {
      const body = (await request.json()) as { email: string; password: string };
      if (db.users.has(body.email)) return err(409, 'An account with this email already exists');
      const user: User = {
        uid: `uid-${db.users.size + 1}`,
        email: body.email,
        displayName: null,
        photoURL: null,
        role: 'user',
        created_at: new Date().toISOString(),
      };
      db.users.set(body.email, { user, password: body.password });
      return HttpResponse.json({ status: 'success', user }, { status: 201 });
    }),
  ),
  http.post(
    '/api/auth/refresh',
    counted('/api/auth/refresh', () => {
      const email = db.refreshCookie;
      // No cookie: a signed-out visitor, answered without an error status (the server's contract).
      if (!email) return new HttpResponse(null, { status: 204 });
      const record = db.users.get(email);
      if (!record) return err(401, 'Session expired or revoked');
      return HttpResponse.json(issueSession(record.user));
    }),
  ),
  http.post(
    '/api/auth/logout',
    counted('/api/auth/logout', () => {
      db.refreshCookie = null;
      return HttpResponse.json({ status: 'success' });
    }),
  ),
  http.post(
    '/forgot-password',
    counted('/forgot-password', () =>
      HttpResponse.json({
        status: 'success',
        message: 'If an account exists for that email, we have sent a password reset link.',
      }),
    ),
  ),
  http.post(
    '/api/auth/reset-password',
    counted('/api/auth/reset-password', async ({ request }) => {
      const body = (await request.json()) as { token: string };
      if (body.token !== 'good-token') return err(400, 'This reset link is invalid or has expired.');
      return HttpResponse.json({ status: 'success' });
    }),
  ),
  http.post(
    '/api/auth/change-password',
    counted('/api/auth/change-password', async ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      const body = (await request.json()) as { current_password: string; new_password: string };
      const record = db.users.get(user.email)!;
      if (record.password !== body.current_password) return err(400, 'Current password is incorrect');
      record.password = body.new_password;
      return HttpResponse.json({ status: 'success' });
    }),
  ),
  http.get(
    '/api/auth/me',
    counted('/api/auth/me', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      return HttpResponse.json({ status: 'success', user });
    }),
  ),
  http.patch(
    '/api/auth/me',
    counted('/api/auth/me PATCH', async ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      const body = (await request.json()) as { display_name?: string | null; photo_url?: string | null };
      const record = db.users.get(user.email)!;
      record.user = {
        ...record.user,
        displayName: body.display_name === undefined ? record.user.displayName : body.display_name,
        photoURL: body.photo_url === undefined ? record.user.photoURL : body.photo_url,
      };
      return HttpResponse.json({ status: 'success', user: record.user });
    }),
  ),
  http.get(
    '/api/auth/get-search-stats',
    counted('/api/auth/get-search-stats', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      if (user.role === 'admin') {
        return HttpResponse.json({
          status: 'success',
          stats: { ...db.stats, search_limit: null, remaining_searches: null, batch_rows_limit: null, batch_rows_remaining: null },
        });
      }
      return HttpResponse.json({ status: 'success', stats: db.stats });
    }),
  ),
  http.get(
    '/api/auth/get-user-info/:uid',
    counted('/api/auth/get-user-info', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      return HttpResponse.json({
        status: 'success',
        user: {
          uid: user.uid,
          email: user.email,
          name: user.displayName,
          role: user.role,
          picture: user.photoURL,
          created_at: user.created_at,
        },
      });
    }),
  ),
  http.get(
    '/api/auth/providers',
    counted('/api/auth/providers', () => HttpResponse.json({ providers: [{ id: 'google', name: 'Google' }] })),
  ),
  // The dashboard's lists start empty; tests that need searches or exports override these.
  http.get('/api/recent-searches', () => HttpResponse.json({ status: 'success', searches: [] })),
  http.get('/api/list-exported-files', () => HttpResponse.json({ status: 'success', files: [] })),
  // No batch job is running unless a test says so.
  http.get('/api/batch-jobs', () => HttpResponse.json({ status: 'success', jobs: [] })),
  // A server without the detailed export (issue #11's endpoint) answers 404: the pages do without it.
  http.get('/api/exports/:filename/detailed', () => err(404, 'Export not found')),
  http.delete(
    '/api/exports/:filename',
    counted('/api/exports DELETE', () => HttpResponse.json({ status: 'success' })),
  ),
  // The admin pages' defaults: the saved settings and an empty system.
  http.get('/api/admin/settings', () =>
    HttpResponse.json({ status: 'success', settings: { monthly_search_limit: 10, rate_limiting: true, search_caching: true, monthly_batch_row_limit: 10_000 } }),
  ),
  http.get('/api/admin/list-users', () => HttpResponse.json({ status: 'success', users: [] })),
  http.get('/api/admin/search-stats', () =>
    HttpResponse.json({
      status: 'success',
      stats: { total_users: 0, admin_users: 0, regular_users: 0, total_searches: 0, month_searches: 0, day_searches: 0, near_limit_users: 0 },
    }),
  ),
];
