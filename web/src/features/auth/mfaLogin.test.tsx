import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ADMIN, ANN, callCount, db, GOOD_PASSWORD } from '../../test/db';
import { MFA_CODE, MFA_RECOVERY_CODES } from '../../test/handlers';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { CODE_FORMAT_MESSAGE } from './MfaStep';

const location = () => screen.getByTestId('location');
/** The server's refusal of an administrator who must set up two-factor sign-in first. */
const MFA_SETUP_REQUIRED = 'Set up two-factor sign-in on Settings to continue';

async function passwordStep(user: ReturnType<typeof renderApp>['user'], email = ANN.email) {
  await user.type(await screen.findByLabelText('Email'), email);
  await user.type(screen.getByLabelText('Password'), GOOD_PASSWORD);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
}

describe('Sign-in with two-factor sign-in on', () => {
  it('asks for the 6-digit code after the password, then signs in', async () => {
    db.mfa.set(ANN.email, { enabled: true, recoveryCodes: [...MFA_RECOVERY_CODES] });
    const { user, store } = renderApp({ route: '/login' });
    await passwordStep(user);

    expect(await screen.findByRole('heading', { name: 'Two-factor sign-in' })).toBeInTheDocument();
    const code = screen.getByLabelText('Authentication code');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('inputmode', 'numeric');
    await waitFor(() => expect(code).toHaveFocus());
    // No session yet: only the token for the second step.
    expect(store.getState().auth.user).toBeNull();

    await user.type(code, '123{Enter}');
    expect(await screen.findByText(CODE_FORMAT_MESSAGE)).toBeInTheDocument();
    expect(callCount('/api/auth/login/mfa')).toBe(0);

    await user.type(code, '999{Enter}');
    expect(await screen.findByRole('alert')).toHaveTextContent('That code is not right.');
    expect(store.getState().auth.user).toBeNull();

    await user.type(screen.getByLabelText('Authentication code'), `${MFA_CODE}{Enter}`);
    await waitFor(() => expect(location()).toHaveTextContent('/data-processing'));
    expect(store.getState().auth.user?.email).toBe(ANN.email);
  });

  it('accepts a recovery code instead', async () => {
    db.mfa.set(ANN.email, { enabled: true, recoveryCodes: [...MFA_RECOVERY_CODES] });
    const { user } = renderApp({ route: '/login' });
    await passwordStep(user);
    await user.click(await screen.findByRole('button', { name: 'Use a recovery code' }));
    const recovery = screen.getByLabelText('Recovery code');
    await waitFor(() => expect(recovery).toHaveFocus());
    const chosen = (MFA_RECOVERY_CODES.at(2) ?? '').toLowerCase();
    await user.type(recovery, `${chosen}{Enter}`);
    await waitFor(() => expect(location()).toHaveTextContent('/data-processing'));
    expect(db.lastBodies['/api/auth/login/mfa']).toMatchObject({ recovery_code: chosen });
    expect(db.mfa.get(ANN.email)?.recoveryCodes).toHaveLength(9);
  });

  it('goes back to email and password', async () => {
    db.mfa.set(ANN.email, { enabled: true, recoveryCodes: [] });
    const { user } = renderApp({ route: '/login' });
    await passwordStep(user);
    await user.click(await screen.findByRole('button', { name: 'Back to sign in' }));
    expect(await screen.findByRole('heading', { name: 'Sign in to PerilScope' })).toBeInTheDocument();
  });

  it('takes the second step after third-party sign-in, from the address fragment', async () => {
    db.mfa.set(ANN.email, { enabled: true, recoveryCodes: [] });
    const { user } = renderApp({ route: `/login#mfa_token=${encodeURIComponent(`mfa-token:${ANN.email}`)}` });
    expect(await screen.findByRole('heading', { name: 'Two-factor sign-in' })).toBeInTheDocument();
    await user.type(screen.getByLabelText('Authentication code'), `${MFA_CODE}{Enter}`);
    await waitFor(() => expect(location()).toHaveTextContent('/data-processing'));
    expect(db.lastBodies['/api/auth/login/mfa']).toEqual({ mfa_token: `mfa-token:${ANN.email}`, code: MFA_CODE });
  });
});

describe('An administrator who must set up two-factor sign-in', () => {
  it('is sent to /settings after signing in', async () => {
    server.use(
      http.post('/api/auth/login', () =>
        HttpResponse.json({
          status: 'success',
          access_token: 'limited-token',
          token_type: 'bearer',
          expires_in: 900,
          user: ADMIN,
          mfa_enrolment_required: true,
        }),
      ),
    );
    const { user } = renderApp({ route: '/login' });
    await passwordStep(user, ADMIN.email);
    await waitFor(() => expect(location()).toHaveTextContent('/settings'));
  });

  it('is sent from an admin page to /settings when the server asks for the set-up', async () => {
    server.use(http.get('/api/admin/list-users', () => HttpResponse.json({ status: 'error', error: MFA_SETUP_REQUIRED }, { status: 403 })));
    renderApp({ route: '/admin/users', preloadedState: signedInState(ADMIN) });
    await waitFor(() => expect(location()).toHaveTextContent('/settings'));
  });
});
