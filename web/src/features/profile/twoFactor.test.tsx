import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ADMIN, ANN, callCount, db, GOOD_PASSWORD } from '../../test/db';
import { MFA_CODE, MFA_RECOVERY_CODES, MFA_SECRET } from '../../test/handlers';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { groupedSecret, MFA_REQUIRED_NOTICE, MFA_TURNED_OFF, MFA_TURNED_ON } from './TwoFactorSection';

const section = async () => within(await screen.findByRole('region', { name: 'Two-factor sign-in' }));

describe('Two-factor sign-in on /settings', () => {
  it('sets it up with the QR code and the key, confirms with a code and shows the recovery codes once', async () => {
    const { user, store } = renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const mfa = await section();
    expect(await mfa.findByText('Off')).toBeInTheDocument();
    await user.click(mfa.getByRole('button', { name: 'Set up two-factor sign-in' }));

    const qr = await mfa.findByRole('img', { name: 'QR code for setting up two-factor sign-in' });
    // Shown as an image: the server's SVG never becomes markup in the page.
    expect(qr.getAttribute('src')).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
    expect(mfa.getByLabelText('Set-up key')).toHaveTextContent(groupedSecret(MFA_SECRET));
    // On a phone the QR code cannot be scanned by the same phone: the otpauth link opens the app.
    expect(mfa.getByRole('link', { name: 'Open it in your authenticator app' })).toHaveAttribute(
      'href',
      expect.stringMatching(/^otpauth:\/\/totp\/PerilScope:/),
    );
    const code = mfa.getByLabelText('Enter the 6-digit code from the app');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('inputmode', 'numeric');

    await user.type(code, '12');
    await user.click(mfa.getByRole('button', { name: 'Turn on' }));
    expect(await mfa.findByText('Enter the 6-digit code your app shows for PerilScope.')).toBeInTheDocument();
    expect(callCount('/api/auth/mfa/confirm')).toBe(0);

    await user.clear(code);
    await user.type(code, '000000');
    await user.type(mfa.getByLabelText('Current password'), GOOD_PASSWORD);
    await user.click(mfa.getByRole('button', { name: 'Turn on' }));
    expect(await mfa.findByText('That code is not right.')).toBeInTheDocument();
    await user.clear(mfa.getByLabelText('Current password'));

    // The password is asked again before it turns on.
    await user.clear(code);
    await user.type(code, MFA_CODE);
    await user.click(mfa.getByRole('button', { name: 'Turn on' }));
    expect(await mfa.findByText('Enter your current password.')).toBeInTheDocument();
    await user.type(mfa.getByLabelText('Current password'), `${GOOD_PASSWORD}{Enter}`);
    expect(await mfa.findByText(MFA_TURNED_ON)).toBeInTheDocument();
    const codes = mfa.getByRole('list', { name: 'Recovery codes' });
    expect(within(codes).getAllByRole('listitem').map((li) => li.textContent)).toEqual(MFA_RECOVERY_CODES);
    // The answer is a new session (every other one ended), which the app now uses.
    expect(store.getState().auth.accessToken).toMatch(/^token-/);

    await user.click(mfa.getByRole('button', { name: 'Copy codes' }));
    expect(await mfa.findByText('Recovery codes copied.')).toBeInTheDocument();
    // user-event stands in for the clipboard.
    expect(await navigator.clipboard.readText()).toContain(MFA_RECOVERY_CODES.join('\n'));

    await user.click(mfa.getByRole('button', { name: 'I have saved my codes' }));
    expect(mfa.queryByRole('list', { name: 'Recovery codes' })).not.toBeInTheDocument();
    expect(await mfa.findByText(/10 recovery codes left/)).toBeInTheDocument();
    expect(mfa.getByText('On')).toBeInTheDocument();
  });

  it('turns it off with the password and a code', async () => {
    db.mfa.set(ANN.email, { enabled: true, recoveryCodes: MFA_RECOVERY_CODES.slice(0, 2) });
    const { user } = renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const mfa = await section();
    expect(await mfa.findByText(/2 recovery codes left/)).toBeInTheDocument();
    expect(mfa.getByText(/Few recovery codes are left/)).toBeInTheDocument();
    await user.click(mfa.getByRole('button', { name: 'Turn off two-factor sign-in' }));
    await user.type(mfa.getByLabelText('Current password'), 'Wr0ng!Pass');
    await user.type(mfa.getByLabelText('Authentication or recovery code'), MFA_CODE);
    await user.click(mfa.getByRole('button', { name: 'Turn off' }));
    expect(await mfa.findByText('Current password is incorrect')).toBeInTheDocument();

    await user.clear(mfa.getByLabelText('Current password'));
    await user.type(mfa.getByLabelText('Current password'), GOOD_PASSWORD);
    await user.click(mfa.getByRole('button', { name: 'Turn off' }));
    expect(await mfa.findByText(MFA_TURNED_OFF)).toBeInTheDocument();
    await waitFor(() => expect(mfa.getByRole('button', { name: 'Set up two-factor sign-in' })).toBeInTheDocument());
    expect(db.mfa.has(ANN.email)).toBe(false);
  });

  it('tells an administrator when it is required, and offers no way to turn it off then', async () => {
    db.requireAdminMfa = true;
    const first = renderApp({ route: '/settings', preloadedState: signedInState(ADMIN) });
    expect(await (await section()).findByText(MFA_REQUIRED_NOTICE)).toBeInTheDocument();
    first.unmount();

    db.mfa.set(ADMIN.email, { enabled: true, recoveryCodes: [...MFA_RECOVERY_CODES] });
    renderApp({ route: '/settings', preloadedState: signedInState(ADMIN) });
    const mfa = await section();
    expect(await mfa.findByText(/required for administrators on this site, so it stays on/)).toBeInTheDocument();
    expect(mfa.queryByRole('button', { name: 'Turn off two-factor sign-in' })).not.toBeInTheDocument();
  });

  it('asks no password of an account made by third-party sign-in', async () => {
    server.use(
      http.get('/api/auth/mfa', () =>
        HttpResponse.json({ status: 'success', enabled: false, recovery_codes_left: 0, required: false, password_required: false }),
      ),
      http.post('/api/auth/mfa/confirm', async ({ request }) => {
        db.lastBodies['/api/auth/mfa/confirm'] = await request.json();
        return HttpResponse.json({
          status: 'success',
          access_token: 'token-new',
          token_type: 'bearer',
          expires_in: 900,
          user: ANN,
          recovery_codes: MFA_RECOVERY_CODES,
        });
      }),
    );
    const { user } = renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const mfa = await section();
    await user.click(await mfa.findByRole('button', { name: 'Set up two-factor sign-in' }));
    await user.type(await mfa.findByLabelText('Enter the 6-digit code from the app'), `${MFA_CODE}{Enter}`);
    expect(await mfa.findByText(MFA_TURNED_ON)).toBeInTheDocument();
    expect(mfa.queryByLabelText('Current password')).not.toBeInTheDocument();
    expect(db.lastBodies['/api/auth/mfa/confirm']).toEqual({ code: MFA_CODE, password: '' });
  });
});
