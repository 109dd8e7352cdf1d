import { act, screen, waitFor, within } from '@testing-library/react';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { ADMIN } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import type { AdminUser, ApiPlan } from './adminApi';
import { parseDailyLimit, PLAN_UPDATED } from './ApiPlanForm';
import { parseLimit } from './SystemSettingsPage';
import { average, percent, statisticsView } from './statistics';

const USERS: AdminUser[] = [
  { uid: 'u1', name: 'Zoe Park', email: 'zoe@example.com', role: 'user', picture: null, created_at: '2026-03-02T10:00:00Z' },
  { uid: 'u2', name: null, email: 'amir@example.com', role: 'admin', picture: null, created_at: null },
  { uid: 'u3', name: 'Bea Cole', email: 'bea@example.com', role: 'user', picture: null, created_at: '2026-01-15T10:00:00Z' },
];

function adminServer(users = USERS) {
  const state = users.map((user) => ({ ...user }));
  const plans = new Map<string, ApiPlan>();
  server.use(
    http.post('/api/admin/update-user-plan', async ({ request }) => {
      const body = (await request.json()) as { uid: string; plan: ApiPlan['plan']; daily_limit?: number };
      if (body.plan === 'enterprise' && body.daily_limit === 7) {
        return HttpResponse.json({ status: 'error', error: 'Refused by the server.' }, { status: 400 });
      }
      const api_plan = { plan: body.plan, daily_limit: body.daily_limit ?? (body.plan === 'premium' ? 1000 : 100) };
      plans.set(body.uid, api_plan);
      return HttpResponse.json({ status: 'success', uid: body.uid, api_plan });
    }),
    http.get('/api/admin/list-users', () => HttpResponse.json({ status: 'success', users: state })),
    http.get('/api/admin/user-info/:uid', ({ params }) => {
      const user = state.find((u) => u.uid === params.uid)!;
      return HttpResponse.json({
        status: 'success',
        user: { ...user, api_plan: plans.get(user.uid) ?? { plan: 'standard', daily_limit: 100 }, search_stats: { current_month_searches: 3, search_limit: user.role === 'admin' ? null : 10, remaining_searches: 7, total_searches: 12, last_search_date: null } },
      });
    }),
    http.post('/api/admin/update-user-role', async ({ request }) => {
      const body = (await request.json()) as { uid: string; role: 'user' | 'admin' };
      if (body.uid === 'u2') return HttpResponse.json({ status: 'error', error: 'You are the only administrator.' }, { status: 409 });
      const user = state.find((u) => u.uid === body.uid)!;
      user.role = body.role;
      return HttpResponse.json({ status: 'success', user });
    }),
  );
}

const rowNames = () => screen.getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell')[1]!.textContent);

describe('statistics arithmetic (SPEC §9)', () => {
  it('rounds percentages and treats a zero denominator as 0', () => {
    expect(percent(1, 3)).toBe(33);
    expect(percent(2, 3)).toBe(67);
    expect(percent(5, 0)).toBe(0);
    expect(average(7, 0)).toBe(0);
    const view = statisticsView({ total_users: 4, admin_users: 1, regular_users: 3, total_searches: 40, month_searches: 15, day_searches: 3, near_limit_users: 1 });
    expect(view).toEqual({ adminShare: 25, regularShare: 75, searchesPerUser: 10, monthShareOfTotal: 38, todayShareOfMonth: 20, nearLimitShare: 33, dailyAverage: 0.5 });
  });

  it('accepts a limit of 1 to 100, whole numbers only', () => {
    expect(parseLimit('3')).toBe(3);
    for (const bad of ['0', '101', '2.5', '', 'ten']) expect(typeof parseLimit(bad)).toBe('string');
  });
});

describe('/admin/users', () => {
  it('filters, sorts and opens a user with the SPEC texts', async () => {
    adminServer();
    const { user } = renderApp({ route: '/admin/users', preloadedState: signedInState(ADMIN) });
    await screen.findByText('zoe@example.com');
    expect(rowNames()).toEqual(['zoe@example.com', 'bea@example.com', 'amir@example.com']); // newest first (unknown date last)
    await user.click(screen.getByRole('button', { name: /Email/ }));
    expect(rowNames()).toEqual(['amir@example.com', 'bea@example.com', 'zoe@example.com']);
    await user.click(screen.getByRole('button', { name: /Email/ }));
    expect(rowNames()).toEqual(['zoe@example.com', 'bea@example.com', 'amir@example.com']);

    await user.type(screen.getByPlaceholderText('Search users...'), 'BEA');
    expect(rowNames()).toEqual(['bea@example.com']);
    await user.clear(screen.getByPlaceholderText('Search users...'));
    await user.type(screen.getByPlaceholderText('Search users...'), 'nobody');
    expect(screen.getByText('No users match your search.')).toBeInTheDocument();
    await user.clear(screen.getByPlaceholderText('Search users...'));

    await user.click(screen.getByRole('row', { name: /amir@example.com/ }));
    const details = await screen.findByRole('region', { name: 'User details' });
    expect(await within(details).findByText('3 / No limit')).toBeInTheDocument();
    expect(within(details).getByRole('heading', { name: 'Name not set' })).toBeInTheDocument();
    expect(within(details).getAllByText('Unknown')).toHaveLength(2); // registration date, last search
    expect(within(details).getByRole('button', { name: 'Set as Admin' })).toBeDisabled();
    expect(within(details).getByRole('button', { name: 'Set as User' })).toBeEnabled();
  });

  it("never loads another user's photo_url: their avatar is initials made in the page", async () => {
    const tracker = 'https://tracker.example/pixel.png?u=zoe';
    adminServer(USERS.map((u) => ({ ...u, picture: `${tracker}-${u.uid}` })));
    const { user } = renderApp({ route: '/admin/users', preloadedState: signedInState({ ...ADMIN, photoURL: 'https://cdn.example/me.png' }) });
    await user.click(await screen.findByRole('row', { name: /zoe@example.com/ }));
    const details = await screen.findByRole('region', { name: 'User details' });
    expect(await within(details).findByRole('img', { name: 'Zoe Park avatar' })).toHaveTextContent(/^ZP$/);
    expect(details.querySelector('img')).toBeNull();
    const sources = [...document.querySelectorAll('img')].map((img) => img.getAttribute('src'));
    expect(sources.filter((src) => src?.startsWith(tracker))).toEqual([]);
    // The admin's own photo may still show in their own top bar.
    expect(sources).toContain('https://cdn.example/me.png');
  });

  it("changes a role, shows 'Role updated successfully' for 3 seconds, and shows the server's refusal", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    try {
      adminServer();
      const { user } = renderApp({ route: '/admin/users', preloadedState: signedInState(ADMIN) });
      await user.click(await screen.findByRole('row', { name: /zoe@example.com/ }));
      const details = await screen.findByRole('region', { name: 'User details' });
      await user.click(await within(details).findByRole('button', { name: 'Set as Admin' }));
      expect(await within(details).findByText('Role updated successfully')).toBeInTheDocument();
      await waitFor(() => expect(within(screen.getByRole('row', { name: /zoe@example.com/ })).getByText('Admin')).toBeInTheDocument());
      await act(async () => { vi.advanceTimersByTime(3100); });
      expect(within(details).queryByText('Role updated successfully')).not.toBeInTheDocument();

      await user.click(screen.getByRole('row', { name: /amir@example.com/ }));
      const amir = await screen.findByRole('region', { name: 'User details' });
      await user.click(await within(amir).findByRole('button', { name: 'Set as User' }));
      expect(await within(amir).findByText('You are the only administrator.')).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows the API plan and sets Premium or an Enterprise number of requests a day', async () => {
    adminServer();
    const { user } = renderApp({ route: '/admin/users', preloadedState: signedInState(ADMIN) });
    await user.click(await screen.findByRole('row', { name: /zoe@example.com/ }));
    const form = await screen.findByRole('form', { name: 'API plan' });
    expect(form).toHaveTextContent('API plan: Standard, 100 requests a day');

    await user.selectOptions(within(form).getByLabelText('Plan'), 'premium');
    await user.click(within(form).getByRole('button', { name: 'Save plan' }));
    expect(await within(form).findByText(PLAN_UPDATED)).toBeInTheDocument();
    await waitFor(() => expect(form).toHaveTextContent('API plan: Premium, 1,000 requests a day'));

    await user.selectOptions(within(form).getByLabelText('Plan'), 'enterprise');
    const limit = within(form).getByLabelText('Requests a day');
    await user.type(limit, '0');
    await user.click(within(form).getByRole('button', { name: 'Save plan' }));
    expect(await within(form).findByText(/Enter a whole number of requests a day from 1 to 10,000,000/)).toBeInTheDocument();
    await user.clear(limit);
    await user.type(limit, '7');
    await user.click(within(form).getByRole('button', { name: 'Save plan' }));
    expect(await within(form).findByText('Refused by the server.')).toBeInTheDocument();
    await user.clear(limit);
    await user.type(limit, '25000');
    await user.click(within(form).getByRole('button', { name: 'Save plan' }));
    await waitFor(() => expect(form).toHaveTextContent('API plan: Enterprise, 25,000 requests a day'));
  });

  it('accepts 1 to 10,000,000 requests a day, whole numbers only', () => {
    expect(parseDailyLimit(' 250 ')).toBe(250);
    for (const bad of ['0', '10000001', '2.5', '', 'many']) expect(typeof parseDailyLimit(bad)).toBe('string');
  });

  it("goes to '/' when the server refuses the list (SPEC §6)", async () => {
    server.use(http.get('/api/admin/list-users', () => HttpResponse.json({ status: 'error', error: 'Administrator rights are required' }, { status: 403 })));
    renderApp({ route: '/admin/users', preloadedState: signedInState(ADMIN) });
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent(/^\/$/));
  });
});

describe('/admin/statistics and /admin/settings', () => {
  it('shows the cards, the near-limit warning, and refreshes', async () => {
    let calls = 0;
    server.use(http.get('/api/admin/search-stats', () => {
      calls += 1;
      return HttpResponse.json({ status: 'success', stats: { total_users: 4, admin_users: 1, regular_users: 3, total_searches: 40, month_searches: 15, day_searches: 3, near_limit_users: calls, api_requests_today: 250, api_callers_today: 2 } });
    }));
    const { user } = renderApp({ route: '/admin/statistics', preloadedState: signedInState(ADMIN) });
    expect(await screen.findByText('1 user is near their monthly search limit.')).toBeInTheDocument();
    expect(within(screen.getByRole('article', { name: 'Total Users' })).getByText('1 (25%)')).toBeInTheDocument();
    expect(screen.getByText('38% of all searches')).toBeInTheDocument();
    expect(screen.getByText('20% of this month')).toBeInTheDocument();
    const api = screen.getByRole('article', { name: 'Public API Today' });
    expect(api).toHaveTextContent('250');
    expect(api).toHaveTextContent('requests by 2 users (UTC day)');
    await user.click(screen.getByRole('button', { name: 'Refresh Data' }));
    expect(await screen.findByText('2 users are near their monthly search limit.')).toBeInTheDocument();
  });

  it('the admin/regular split bars have a fill colour (a rule matches each fill)', async () => {
    server.use(http.get('/api/admin/search-stats', () =>
      HttpResponse.json({ status: 'success', stats: { total_users: 4, admin_users: 1, regular_users: 3, total_searches: 0, month_searches: 0, day_searches: 0, near_limit_users: 0 } })));
    renderApp({ route: '/admin/statistics', preloadedState: signedInState(ADMIN) });
    // The tests run without CSS, so the check reads the stylesheet: the browser test measures the colour.
    const css = readFileSync(path.resolve(__dirname, '../../styles/global.css'), 'utf8');
    const backgroundOf = (selector: string) =>
      new RegExp(`(^|\\n|,\\s*)${selector.replace(/\./g, '\\.')}\\s*\\{[^}]*background:\\s*([^;]+);`).exec(css)?.[2];
    for (const [name, share] of [['Admins', 25], ['Regular users', 75]] as const) {
      const bar = await screen.findByRole('img', { name: `${name}: ${share}%` });
      const fill = bar.querySelector('.progress-fill') as HTMLElement;
      expect(fill.style.width).toBe(`${share}%`);
      const tone = [...bar.classList].find((c) => /^progress-(navy|green|yellow|red)$/.test(c));
      expect(tone, `${name} bar has a tone class`).toBeDefined();
      expect(backgroundOf(`.${tone} .progress-fill`)).toMatch(/^(var\(--|#)/);
    }
    expect(backgroundOf('.progress-fill')).toMatch(/^(var\(--|#)/);
  });

  it("shows 'Failed to fetch statistics' when the answer is not a success", async () => {
    server.use(http.get('/api/admin/search-stats', () => HttpResponse.json({ status: 'pending' })));
    renderApp({ route: '/admin/statistics', preloadedState: signedInState(ADMIN) });
    expect(await screen.findByText('Failed to fetch statistics')).toBeInTheDocument();
  });

  it('loads, validates and saves the settings for real', async () => {
    let saved: unknown = null;
    server.use(
      http.get('/api/admin/settings', () =>
        HttpResponse.json({ status: 'success', settings: { monthly_search_limit: 10, rate_limiting: true, search_caching: true, monthly_batch_row_limit: 10_000 } }),
      ),
      http.put('/api/admin/settings', async ({ request }) => {
        saved = await request.json();
        return HttpResponse.json({ status: 'success', settings: saved });
      }),
    );
    const { user } = renderApp({ route: '/admin/settings', preloadedState: signedInState(ADMIN) });
    const limit = await screen.findByLabelText('Regular User Monthly Search Limit');
    await waitFor(() => expect(limit).toHaveValue(10));
    await user.clear(limit);
    await user.type(limit, '101');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(screen.getByText('Enter a whole number from 1 to 100.')).toBeInTheDocument();
    expect(saved).toBeNull();
    await user.clear(limit);
    await user.type(limit, '3');
    await user.click(screen.getByLabelText('Enable Search Caching'));
    await user.click(screen.getByLabelText('Require two-factor sign-in for all administrators'));
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await screen.findByText('Settings saved')).toBeInTheDocument();
    expect(saved).toMatchObject({ monthly_search_limit: 3, rate_limiting: true, search_caching: false, monthly_batch_row_limit: 10_000 });
    expect(saved).toMatchObject({ require_admin_mfa: true });

    const rows = screen.getByLabelText('Regular User Monthly Batch Rows');
    await user.clear(rows);
    await user.type(rows, '0');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(screen.getByText('Enter a whole number from 1 to 1,000,000.')).toBeInTheDocument();
    await user.clear(rows);
    await user.type(rows, '25000');
    await user.click(screen.getByRole('button', { name: 'Save Settings' }));
    await waitFor(() => expect(saved).toMatchObject({ monthly_batch_row_limit: 25_000 }));
  });
});
