import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { ADMIN, ANN, db } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';

describe('Profile', () => {
  it('shows the avatar, name and read-only email with the verification note', async () => {
    renderApp({ route: '/profile', preloadedState: signedInState(ANN) });
    expect(await screen.findByRole('heading', { name: 'Profile' })).toBeInTheDocument();
    const email = screen.getByLabelText('Email');
    expect(email).toHaveValue(ANN.email);
    expect(email).toHaveAttribute('readonly');
    expect(email).toHaveAccessibleDescription('Email cannot be changed without verification.');
    // No photo: a generated initials avatar.
    expect(screen.getAllByRole('img', { name: 'Ann Lee avatar' })[0]).toHaveTextContent('AL');
  });

  it('Cancel discards the draft', async () => {
    const { user } = renderApp({ route: '/profile', preloadedState: signedInState(ANN) });
    await user.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const name = screen.getByLabelText('Display name');
    expect(name).toHaveValue('Ann Lee');
    await user.clear(name);
    await user.type(name, 'Someone Else');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByLabelText('Display name')).not.toBeInTheDocument();
    expect(screen.getAllByText('Ann Lee').length).toBeGreaterThan(0);
    expect(screen.queryByText('Someone Else')).not.toBeInTheDocument();
    expect(db.calls['/api/auth/me PATCH']).toBeUndefined();
  });

  it("saves the draft, shows 'Saving...' then 'Profile updated successfully' for 3 seconds", async () => {
    server.use(
      http.patch('/api/auth/me', async ({ request }) => {
        await delay(300);
        const body = (await request.json()) as { display_name: string; photo_url: string | null };
        db.lastBodies['/api/auth/me PATCH'] = body;
        return HttpResponse.json({
          status: 'success',
          user: { ...ANN, displayName: body.display_name, photoURL: body.photo_url },
        });
      }),
    );
    // Fake timers (advancing with real time) so the 3-second banner can be stepped through.
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout'] });
    const { user, store } = renderApp({ route: '/profile', preloadedState: signedInState(ANN) });
    await user.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    const name = screen.getByLabelText('Display name');
    await user.clear(name);
    await user.type(name, 'Ann Marie Lee');
    await user.type(screen.getByLabelText('Photo URL'), 'https://example.com/ann.png');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('button', { name: 'Saving...' })).toBeDisabled();

    const banner = await screen.findByText('Profile updated successfully');
    expect(banner).toBeInTheDocument();
    expect(db.lastBodies['/api/auth/me PATCH']).toEqual({
      display_name: 'Ann Marie Lee',
      photo_url: 'https://example.com/ann.png',
    });
    expect(store.getState().auth.user?.displayName).toBe('Ann Marie Lee');
    expect(screen.getByRole('button', { name: 'Edit Profile' })).toBeInTheDocument();
    const main = screen.getByRole('main');
    expect(within(main).getAllByRole('img', { name: 'Ann Marie Lee avatar' })[0]).toHaveAttribute(
      'src',
      'https://example.com/ann.png',
    );

    // The banner goes away after 3 seconds.
    try {
      await act(async () => {}); // flush the effect that starts the banner timer
      await act(async () => {
        vi.advanceTimersByTime(2700);
      });
      expect(screen.queryByText('Profile updated successfully')).toBeInTheDocument();
      await act(async () => {
        vi.advanceTimersByTime(400);
      });
      expect(screen.queryByText('Profile updated successfully')).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows the server error when saving fails', async () => {
    server.use(http.patch('/api/auth/me', () => HttpResponse.json({ status: 'error', error: 'Display name is too long' }, { status: 400 })));
    const { user } = renderApp({ route: '/profile', preloadedState: signedInState(ANN) });
    await user.click(await screen.findByRole('button', { name: 'Edit Profile' }));
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Display name is too long');
    expect(screen.getByRole('button', { name: 'Save Changes' })).toBeEnabled();
  });

  it('changes the password with the current one', async () => {
    const { user } = renderApp({ route: '/profile', preloadedState: signedInState(ANN) });
    await user.type(await screen.findByLabelText('Current password'), 'Wrong!Pass1');
    await user.type(screen.getByLabelText('New password'), 'N3w!Password');
    await user.type(screen.getByLabelText('Confirm password'), 'N3w!Password');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Current password is incorrect');

    await user.clear(screen.getByLabelText('Current password'));
    await user.type(screen.getByLabelText('Current password'), 'Str0ng!Pass');
    await user.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText('Password changed successfully')).toBeInTheDocument();
    expect(db.users.get(ANN.email)?.password).toBe('N3w!Password');
    expect(db.lastBodies['/api/auth/change-password']).toEqual({
      current_password: 'Str0ng!Pass',
      new_password: 'N3w!Password',
    });
  });
});

describe('Settings', () => {
  it('offers change password and the API keys section', async () => {
    renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    expect(await screen.findByRole('heading', { name: 'Settings' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Change password' })).toBeInTheDocument();
    expect(screen.getByLabelText('Current password')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'API keys' })).toBeInTheDocument();
    expect(screen.getByText(/X-API-Key header/)).toBeInTheDocument();
  });
});

describe('Dashboard search statistics', () => {
  it('shows used this month, the limit and the regular role label', async () => {
    renderApp({ route: '/data-processing', preloadedState: signedInState(ANN) });
    expect(await screen.findByText('used this month')).toBeInTheDocument();
    expect(screen.getByTestId('searches-used')).toHaveTextContent(/^3 \/ 10$/);
    expect(screen.getByText('Regular User Account')).toBeInTheDocument();
    const bar = screen.getByRole('progressbar', { name: 'Searches used this month' });
    expect(bar).toHaveAttribute('aria-valuenow', '3');
    expect(bar).toHaveAttribute('aria-valuemax', '10');
    expect(bar).toHaveClass('progress-green');
    expect(screen.queryByText('No Search Limit')).not.toBeInTheDocument();
    expect(screen.queryByText(/Note: You have/)).not.toBeInTheDocument();
  });

  it('warns at 3 or fewer remaining and colours the bar red at 2 or fewer', async () => {
    db.stats = { ...db.stats, current_month_searches: 8, remaining_searches: 2 };
    renderApp({ route: '/data-processing', preloadedState: signedInState(ANN) });
    expect(await screen.findByText('Note: You have 2 searches remaining this month')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Searches used this month' })).toHaveClass('progress-red');
  });

  it("shows 'Administrator Account' and 'No Search Limit' for admins", async () => {
    renderApp({ route: '/data-processing', preloadedState: signedInState(ADMIN) });
    expect(await screen.findByText('No Search Limit')).toBeInTheDocument();
    expect(screen.getByText('Administrator Account')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar', { name: 'Searches used this month' })).not.toBeInTheDocument();
  });
});

describe('Admin routes', () => {
  it('an admin reaches System Settings', async () => {
    renderApp({ route: '/admin/settings', preloadedState: signedInState(ADMIN) });
    expect(await screen.findByRole('heading', { name: 'System Settings' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('location')).toHaveTextContent('/admin/settings'));
  });
});
