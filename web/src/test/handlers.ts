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

/** The code the fake authenticator app shows, and the recovery codes the fake server hands out. */
export const MFA_CODE = '123456';
export const MFA_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
export const MFA_RECOVERY_CODES = Array.from({ length: 10 }, (_, i) => `ABCDE-${String(10000 + i)}`);
const MFA_TOKEN_PREFIX = 'mfa-token:';

/** Two-factor sign-in: listed first, so the login handler below only sees users without it. */
const mfaHandlers = [
  http.post('/api/auth/login', async ({ request }) => {
    const body = (await request.clone().json()) as { email: string; password: string };
    const record = db.users.get(body.email);
    if (!record || record.password !== body.password || !db.mfa.get(body.email)?.enabled) return undefined;
    db.calls['/api/auth/login'] = (db.calls['/api/auth/login'] ?? 0) + 1;
    return HttpResponse.json({ status: 'mfa_required', mfa_token: `${MFA_TOKEN_PREFIX}${body.email}` });
  }),
  http.post(
    '/api/auth/login/mfa',
    counted('/api/auth/login/mfa', async ({ request }) => {
      const body = (await request.json()) as { mfa_token: string; code?: string; recovery_code?: string };
      const email = body.mfa_token.startsWith(MFA_TOKEN_PREFIX) ? body.mfa_token.slice(MFA_TOKEN_PREFIX.length) : '';
      const mfa = db.mfa.get(email);
      const record = db.users.get(email);
      if (!mfa?.enabled || !record) return err(401, 'Your sign-in has expired. Please sign in again.');
      const recovery = body.recovery_code?.toUpperCase();
      const ok = body.code === MFA_CODE || (recovery !== undefined && mfa.recoveryCodes.includes(recovery));
      if (!ok) return err(401, 'That code is not right.');
      if (recovery) mfa.recoveryCodes = mfa.recoveryCodes.filter((code) => code !== recovery);
      return HttpResponse.json(issueSession(record.user));
    }),
  ),
  http.get(
    '/api/auth/mfa',
    counted('/api/auth/mfa', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      const mfa = db.mfa.get(user.email);
      return HttpResponse.json({
        status: 'success',
        enabled: !!mfa?.enabled,
        recovery_codes_left: mfa?.enabled ? mfa.recoveryCodes.length : 0,
        required: user.role === 'admin' && db.requireAdminMfa,
        password_required: true,
      });
    }),
  ),
  http.post(
    '/api/auth/mfa/enrol',
    counted('/api/auth/mfa/enrol', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      db.mfa.set(user.email, { enabled: false, recoveryCodes: [] });
      return HttpResponse.json({
        status: 'success',
        secret: MFA_SECRET,
        otpauth_uri: `otpauth://totp/PerilScope:${encodeURIComponent(user.email)}?secret=${MFA_SECRET}&issuer=PerilScope`,
        qr_svg: '<svg xmlns="http://www.w3.org/2000/svg" width="185" height="185"><title>QR code</title></svg>',
      });
    }),
  ),
  http.post(
    '/api/auth/mfa/confirm',
    counted('/api/auth/mfa/confirm', async ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      const body = (await request.json()) as { code: string; password: string };
      if (db.users.get(user.email)?.password !== body.password) return err(400, 'Current password is incorrect');
      if (body.code !== MFA_CODE) return err(400, 'That code is not right.');
      db.mfa.set(user.email, { enabled: true, recoveryCodes: [...MFA_RECOVERY_CODES] });
      return HttpResponse.json({ ...issueSession(user), recovery_codes: MFA_RECOVERY_CODES });
    }),
  ),
  http.post(
    '/api/auth/mfa/disable',
    counted('/api/auth/mfa/disable', async ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      const body = (await request.json()) as { password: string; code: string };
      if (db.users.get(user.email)?.password !== body.password) return err(400, 'Current password is incorrect');
      if (body.code !== MFA_CODE) return err(400, 'That code is not right.');
      db.mfa.delete(user.email);
      return HttpResponse.json({ status: 'success' });
    }),
  ),
];

/** The whole key the fake server hands out at creation; the list shows only its prefix. */
export const NEW_API_KEY = 'ps_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const API_RESETS_AT = '2026-11-24T00:00:00Z';

function apiUsage(email: string) {
  const plan = db.apiPlans.get(email) ?? { plan: 'standard' as const, daily_limit: 100 };
  const used = db.apiUsedToday.get(email) ?? 0;
  return {
    plan: plan.plan,
    limit: plan.daily_limit,
    used,
    remaining: Math.max(plan.daily_limit - used, 0),
    resets_at: API_RESETS_AT,
  };
}

/** API keys on /settings. */
const apiKeyHandlers = [
  http.get(
    '/api/api-keys',
    counted('/api/api-keys', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      return HttpResponse.json({ status: 'success', keys: db.apiKeys.get(user.email) ?? [], usage: apiUsage(user.email) });
    }),
  ),
  http.post(
    '/api/api-keys',
    counted('/api/api-keys:create', async ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      const body = (await request.json()) as { name: string; scopes: ('read' | 'batch')[] };
      if (!body.name.trim()) return err(400, 'Give the key a name of 1 to 100 characters.');
      const keys = db.apiKeys.get(user.email) ?? [];
      const record = {
        id: `key-${keys.length + 1}`,
        name: body.name,
        prefix: NEW_API_KEY.slice(0, 12),
        scopes: [...body.scopes].sort(),
        created_at: '2026-11-23T10:00:00Z',
        last_used_at: null,
      };
      db.apiKeys.set(user.email, [record, ...keys]);
      return HttpResponse.json({ status: 'success', key: NEW_API_KEY, api_key: record }, { status: 201 });
    }),
  ),
  http.delete(
    '/api/api-keys/:id',
    counted('/api/api-keys:revoke', ({ request, params }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      const keys = db.apiKeys.get(user.email) ?? [];
      if (!keys.some((key) => key.id === params.id)) return err(404, 'No API key with this id belongs to you.');
      db.apiKeys.set(user.email, keys.filter((key) => key.id !== params.id));
      return HttpResponse.json({ status: 'success' });
    }),
  ),
];

/** The signing secrets the fake server hands out: the first, then the one after a rotation. */
export const WEBHOOK_SECRETS = ['whsec_FirstSecretAbCdEfGhIjKlMnOpQrSt', 'whsec_RotatedSecretZyXwVuTsRqPoNmLkJ'];

/** Webhooks on /settings. */
const webhookHandlers = [
  http.get(
    '/api/webhooks/secret',
    counted('/api/webhooks/secret', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      if (!db.webhookSecrets.has(user.email)) db.webhookSecrets.set(user.email, WEBHOOK_SECRETS[0]!);
      return HttpResponse.json({ status: 'success', secret: db.webhookSecrets.get(user.email) });
    }),
  ),
  http.post(
    '/api/webhooks/secret/rotate',
    counted('/api/webhooks/secret/rotate', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      db.webhookSecrets.set(user.email, WEBHOOK_SECRETS[1]!);
      return HttpResponse.json({ status: 'success', secret: WEBHOOK_SECRETS[1] });
    }),
  ),
  http.get(
    '/api/webhooks/deliveries',
    counted('/api/webhooks/deliveries', ({ request }) => {
      const user = bearerUser(request);
      if (!user) return err(401, 'Not authenticated');
      return HttpResponse.json({ status: 'success', deliveries: db.webhookDeliveries.get(user.email) ?? [] });
    }),
  ),
];

export const handlers = [
  ...mfaHandlers,
  ...apiKeyHandlers,
  ...webhookHandlers,
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
  // Nor its rows: the export viewer then reads the SPEC CSV (tests of the paged rows override this).
  http.get('/api/exports/:filename/rows', () => err(404, 'Export not found')),
  http.delete(
    '/api/exports/:filename',
    counted('/api/exports DELETE', () => HttpResponse.json({ status: 'success' })),
  ),
  // The admin pages' defaults: the saved settings and an empty system.
  http.get('/api/admin/settings', () =>
    HttpResponse.json({
      status: 'success',
      settings: {
        monthly_search_limit: 10, rate_limiting: true, search_caching: true, monthly_batch_row_limit: 10_000,
        require_admin_mfa: false,
      },
    }),
  ),
  http.get('/api/admin/list-users', () => HttpResponse.json({ status: 'success', users: [] })),
  http.get('/api/admin/search-stats', () =>
    HttpResponse.json({
      status: 'success',
      stats: { total_users: 0, admin_users: 0, regular_users: 0, total_searches: 0, month_searches: 0, day_searches: 0, near_limit_users: 0 },
    }),
  ),
];
