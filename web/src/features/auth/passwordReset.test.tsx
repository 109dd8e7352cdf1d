import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { callCount, db } from '../../test/db';
import { renderApp } from '../../test/render';
import { server } from '../../test/server';

describe('Forgot password', () => {
  it("shows 'Check your email' with Open email and Back to login, and 'try again' returns to the form", async () => {
    const { user } = renderApp({ route: '/forgot-password' });
    await user.type(await screen.findByLabelText('Email'), 'ann@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));

    expect(await screen.findByRole('heading', { name: 'Check your email' })).toBeInTheDocument();
    expect(db.lastBodies['/forgot-password']).toEqual({ email: 'ann@example.com' });
    const open = screen.getByRole('link', { name: 'Open email' });
    expect(open).toHaveAttribute('href', 'https://mail.google.com');
    expect(open).toHaveAttribute('target', '_blank');
    expect(screen.getByRole('link', { name: 'Back to login' })).toHaveAttribute('href', '/login');
    expect(screen.queryByRole('button', { name: 'Send reset link' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'try again' }));
    expect(screen.getByRole('button', { name: 'Send reset link' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Check your email' })).not.toBeInTheDocument();
  });

  it("shows the server's detail on error", async () => {
    server.use(http.post('/forgot-password', () => HttpResponse.json({ detail: 'Mail server is down' }, { status: 503 })));
    const { user } = renderApp({ route: '/forgot-password' });
    await user.type(await screen.findByLabelText('Email'), 'ann@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Mail server is down');
  });

  it("shows 'Failed to send reset email' when the server gives no message", async () => {
    server.use(http.post('/forgot-password', () => new HttpResponse('oops', { status: 500 })));
    const { user } = renderApp({ route: '/forgot-password' });
    await user.type(await screen.findByLabelText('Email'), 'ann@example.com');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to send reset email');
  });

  it('requires a valid email', async () => {
    const { user } = renderApp({ route: '/forgot-password' });
    await user.type(await screen.findByLabelText('Email'), 'ann@');
    await user.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(callCount('/forgot-password')).toBe(0);
  });
});

describe('Reset password', () => {
  it('sets the new password and links to /login', async () => {
    const { user } = renderApp({ route: '/reset-password?token=good-token' });
    const submit = await screen.findByRole('button', { name: 'Reset password' });
    await user.type(screen.getByLabelText('New password'), 'N3w!Password');
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText('Confirm password'), 'N3w!Password');
    expect(submit).toBeEnabled();
    await user.click(submit);
    expect(await screen.findByText(/Your password has been reset/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to sign in' })).toHaveAttribute('href', '/login');
    expect(db.lastBodies['/api/auth/reset-password']).toEqual({ token: 'good-token', password: 'N3w!Password' });
  });

  it('shows the server error for an expired link', async () => {
    const { user } = renderApp({ route: '/reset-password?token=old-token' });
    await user.type(await screen.findByLabelText('New password'), 'N3w!Password');
    await user.type(screen.getByLabelText('Confirm password'), 'N3w!Password');
    await user.click(screen.getByRole('button', { name: 'Reset password' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('This reset link is invalid or has expired.'));
  });
});
