import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ANN, callCount, db, GOOD_PASSWORD } from '../../test/db';
import { tokens } from '../../test/handlers';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { NO_PROVIDERS_MESSAGE } from './AuthScreen';

const location = () => screen.getByTestId('location');

describe('Signup', () => {
  it('keeps Sign up disabled until every rule passes and says when passwords do not match', async () => {
    const { user } = renderApp({ route: '/signup' });
    const submit = await screen.findByRole('button', { name: 'Sign up' });
    const checklist = screen.getByRole('list', { name: 'Password requirements' });
    const items = within(checklist).getAllByRole('listitem');
    expect(items.map((li) => li.textContent?.replace(/ \((not )?met\)$/, '').replace(/^[✓○]/, ''))).toEqual([
      'At least 8 characters',
      'A number',
      'A lowercase letter',
      'An uppercase letter',
      'A special character (!@#$%^&*(),.?":{}|<>)',
      'Passwords match',
    ]);
    expect(submit).toBeDisabled();

    await user.type(screen.getByLabelText('Email'), 'new@example.com');
    await user.type(screen.getByLabelText('Password'), 'weakpass');
    expect(submit).toBeDisabled();
    expect(screen.getByText('Please ensure all password requirements are met')).toBeInTheDocument();
    expect(within(checklist).getByText('At least 8 characters').closest('li')).toHaveAttribute('data-met', 'true');
    expect(within(checklist).getByText('A number').closest('li')).toHaveAttribute('data-met', 'false');

    await user.clear(screen.getByLabelText('Password'));
    await user.type(screen.getByLabelText('Password'), 'Str0ng!Pass');
    await user.type(screen.getByLabelText('Confirm password'), 'Str0ng!Pas');
    expect(screen.getByText('Passwords do not match')).toBeInTheDocument();
    expect(within(checklist).getByText('Passwords match').closest('li')).toHaveAttribute('data-met', 'false');
    expect(submit).toBeDisabled();

    await user.type(screen.getByLabelText('Confirm password'), 's');
    expect(screen.queryByText('Passwords do not match')).not.toBeInTheDocument();
    expect(submit).toBeEnabled();
  });

  it('creates the account and goes to /login with the success banner', async () => {
    const { user } = renderApp({ route: '/signup' });
    await user.type(await screen.findByLabelText('Email'), 'new@example.com');
    await user.type(screen.getByLabelText('Password'), 'Str0ng!Pass');
    await user.type(screen.getByLabelText('Confirm password'), 'Str0ng!Pass');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByText('Account created. Please sign in.')).toBeInTheDocument();
    expect(location()).toHaveTextContent('/login');
    expect(db.users.has('new@example.com')).toBe(true);
  });

  it("shows the server's error, else 'Signup failed'", async () => {
    const { user } = renderApp({ route: '/signup' });
    await user.type(await screen.findByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), 'Str0ng!Pass');
    await user.type(screen.getByLabelText('Confirm password'), 'Str0ng!Pass');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('An account with this email already exists');

    server.use(http.post('/api/auth/signup', () => new HttpResponse(null, { status: 500 })));
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Signup failed'));
  });

  it('checks the email format before calling the server', async () => {
    const { user } = renderApp({ route: '/signup' });
    await user.type(await screen.findByLabelText('Email'), 'not-an-email');
    await user.type(screen.getByLabelText('Password'), 'Str0ng!Pass');
    await user.type(screen.getByLabelText('Confirm password'), 'Str0ng!Pass');
    await user.click(screen.getByRole('button', { name: 'Sign up' }));
    expect(await screen.findByText('Please enter a valid email address')).toBeInTheDocument();
    expect(callCount('/api/auth/signup')).toBe(0);
  });
});

describe('Login', () => {
  it("shows 'Verifying credentials...' while waiting, then goes to /data-processing", async () => {
    server.use(
      http.post('/api/auth/login', async ({ request }) => {
        await delay(80);
        const body = (await request.json()) as { email: string };
        db.refreshCookie = body.email;
        tokens.set('login-token', body.email);
        return HttpResponse.json({
          status: 'success',
          access_token: 'login-token',
          token_type: 'bearer',
          expires_in: 900,
          user: ANN,
        });
      }),
    );
    const { user, store } = renderApp({ route: '/login' });
    await user.type(await screen.findByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), GOOD_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Verifying credentials...')).toBeInTheDocument();
    await waitFor(() => expect(location()).toHaveTextContent('/data-processing'));
    expect(screen.queryByText('Verifying credentials...')).not.toBeInTheDocument();
    expect(store.getState().auth.accessToken).toBe('login-token');
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
  });

  it('never writes the access token to localStorage', async () => {
    const { user, store } = renderApp({ route: '/login' });
    await user.type(await screen.findByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), GOOD_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(store.getState().auth.accessToken).toBeTruthy());
    const token = store.getState().auth.accessToken!;
    const stored = Object.keys(localStorage).map((k) => localStorage.getItem(k) ?? '');
    const session = Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k) ?? '');
    expect([...stored, ...session].some((v) => v.includes(token))).toBe(false);
  });

  it("shows the server's error on 401", async () => {
    const { user } = renderApp({ route: '/login' });
    await user.type(await screen.findByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), 'Wrong!Pass1');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid email or password');
    expect(location()).toHaveTextContent('/login');
    // A wrong password is not an expired session: no refresh attempt after the answer.
    expect(callCount('/api/auth/refresh')).toBe(1);
  });

  it("shows 'Login failed' when the server gives no message", async () => {
    server.use(http.post('/api/auth/login', () => HttpResponse.json({ status: 'error' }, { status: 500 })));
    const { user } = renderApp({ route: '/login' });
    await user.type(await screen.findByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), GOOD_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/^!?Login failed$/);
  });

  it('sends remember_me as ticked', async () => {
    const { user } = renderApp({ route: '/login' });
    await user.type(await screen.findByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), GOOD_PASSWORD);
    await user.click(screen.getByRole('checkbox', { name: 'Remember me' }));
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(location()).toHaveTextContent('/data-processing'));
    expect(db.lastBodies['/api/auth/login']).toEqual({ email: ANN.email, password: GOOD_PASSWORD, remember_me: true });
  });

  it('sends remember_me false when not ticked', async () => {
    const { user } = renderApp({ route: '/login' });
    await user.type(await screen.findByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), GOOD_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(location()).toHaveTextContent('/data-processing'));
    expect(db.lastBodies['/api/auth/login']).toMatchObject({ remember_me: false });
  });

  it('requires the email and the password', async () => {
    const { user } = renderApp({ route: '/login' });
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(screen.getByText('Email is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    expect(callCount('/api/auth/login')).toBe(0);
  });

  it('toggles password visibility with Show password / Hide password', async () => {
    const { user } = renderApp({ route: '/login' });
    const input = await screen.findByLabelText('Password');
    expect(input).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(input).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(input).toHaveAttribute('type', 'password');
  });

  it('links Forgot password? to /forgot-password', async () => {
    renderApp({ route: '/login' });
    expect(await screen.findByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgot-password');
  });

  it('shows a Continue with button per provider', async () => {
    renderApp({ route: '/login' });
    expect(await screen.findByRole('button', { name: 'Continue with Google' })).toBeInTheDocument();
    expect(screen.queryByText(NO_PROVIDERS_MESSAGE)).not.toBeInTheDocument();
  });

  it('shows the error of a failed third-party sign-in sent back as ?error=', async () => {
    renderApp({ route: '/login?error=' + encodeURIComponent('Sign-in with Google was cancelled.') });
    expect(await screen.findByRole('alert')).toHaveTextContent('Sign-in with Google was cancelled.');
  });

  it('says third-party sign-in is not configured when the provider list is empty', async () => {
    server.use(http.get('/api/auth/providers', () => HttpResponse.json({ providers: [] })));
    renderApp({ route: '/login' });
    expect(await screen.findByText(NO_PROVIDERS_MESSAGE)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Continue with/ })).not.toBeInTheDocument();
  });
});

describe('Private routes', () => {
  it('send a signed-out visitor to /login and back to the page after sign-in', async () => {
    const { user } = renderApp({ route: '/profile' });
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(location()).toHaveTextContent('/login');
    expect(JSON.parse(location().getAttribute('data-state')!)).toMatchObject({ from: { pathname: '/profile' } });

    await user.type(screen.getByLabelText('Email'), ANN.email);
    await user.type(screen.getByLabelText('Password'), GOOD_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(location()).toHaveTextContent('/profile'));
    expect(await screen.findByRole('heading', { name: 'Profile' })).toBeInTheDocument();
  });

  it.each(['/settings', '/data-processing', '/search-result/abc', '/batch-export-detail/a.csv', '/admin/users'])(
    '%s redirects a signed-out visitor to /login',
    async (route) => {
      renderApp({ route });
      await screen.findByRole('button', { name: 'Sign in' });
      expect(location()).toHaveTextContent(/^\/login$/);
    },
  );

  it('admin pages send a regular user to /', async () => {
    renderApp({ route: '/admin/statistics', preloadedState: signedInState(ANN) });
    await waitFor(() => expect(location()).toHaveTextContent(/^\/$/));
  });

  it('on start, a valid refresh cookie restores the session (e.g. after third-party sign-in)', async () => {
    db.refreshCookie = ANN.email;
    const { store } = renderApp({ route: '/data-processing?signed_in=1' });
    // The shell is there at once; the private page waits for the session check instead of redirecting.
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(location()).toHaveTextContent('/data-processing');
    expect(await screen.findByRole('heading', { name: 'Dashboard' })).toBeInTheDocument();
    expect(store.getState().auth.user?.email).toBe(ANN.email);
    expect(callCount('/api/auth/refresh')).toBe(1);
  });
});

describe('Sign out', () => {
  it('calls logout, clears the session, resets the role and goes to /login', async () => {
    const { user, store } = renderApp({ route: '/data-processing', preloadedState: signedInState({ ...ANN, role: 'admin' }) });
    await user.click(await screen.findByRole('button', { name: 'Account menu' }));
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(location()).toHaveTextContent('/login'));
    expect(callCount('/api/auth/logout')).toBe(1);
    expect(store.getState().auth.user).toBeNull();
    expect(store.getState().auth.accessToken).toBeNull();
    expect(store.getState().auth.role).toBe('user');
    expect(await screen.findByRole('link', { name: 'Sign up' })).toBeInTheDocument();
  });
});
