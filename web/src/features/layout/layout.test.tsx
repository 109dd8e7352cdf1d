import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ADMIN, ANN } from '../../test/db';
import { renderApp, signedInState } from '../../test/render';
import { copyrightLine } from './Footer';

describe('NotFound', () => {
  it('shows Page Not Found with links Back to Home and Sign In on an unknown route', async () => {
    renderApp({ route: '/no/such/page' });
    expect(await screen.findByRole('heading', { name: 'Page Not Found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Home' })).toHaveAttribute('href', '/');
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/login');
  });
});

describe('Footer', () => {
  it("shows the copyright line with the current year", async () => {
    renderApp({ route: '/' });
    const footer = await screen.findByRole('contentinfo');
    const year = new Date().getFullYear();
    expect(within(footer).getByText(`© ${year} PerilScope. All rights reserved.`)).toBeInTheDocument();
    expect(copyrightLine(1999)).toBe('© 1999 PerilScope. All rights reserved.');
  });

  it('has the columns Product, Company, Resources and Legal', async () => {
    renderApp({ route: '/' });
    const footer = await screen.findByRole('contentinfo');
    for (const name of ['Product', 'Company', 'Resources', 'Legal']) {
      expect(within(footer).getByRole('heading', { name })).toBeInTheDocument();
    }
  });
});

describe('Top bar', () => {
  it('shows Sign in and Sign up when signed out, and the Docs dropdown labels', async () => {
    const { user } = renderApp({ route: '/' });
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/login');
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
    expect(screen.queryByRole('button', { name: 'Account menu' })).not.toBeInTheDocument();

    const docs = within(nav).getByRole('button', { name: 'Docs' });
    expect(docs).toHaveAttribute('aria-expanded', 'false');
    await user.click(docs);
    expect(docs).toHaveAttribute('aria-expanded', 'true');
    expect(within(nav).getByRole('link', { name: 'Getting Started' })).toHaveAttribute('href', '/docs/getting-started');
    expect(within(nav).getByRole('link', { name: 'UI Documentation' })).toBeVisible();
    expect(within(nav).getByRole('link', { name: 'Geo peril Dictionary (Features)' })).toHaveAttribute(
      'href',
      '/docs/features',
    );
    expect(within(nav).getByRole('link', { name: 'API Documentation' })).toBeVisible();
    await user.keyboard('{Escape}');
    expect(docs).toHaveAttribute('aria-expanded', 'false');
    expect(docs).toHaveFocus();
  });

  it('gives a regular user Profile, Settings and Sign out but no admin links', async () => {
    const { user } = renderApp({ route: '/', preloadedState: signedInState(ANN) });
    await user.click(await screen.findByRole('button', { name: 'Account menu' }));
    expect(screen.getByRole('link', { name: 'Profile' })).toHaveAttribute('href', '/profile');
    expect(screen.getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '/settings');
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeVisible();
    expect(screen.queryByRole('link', { name: 'User Management' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'System Statistics' })).not.toBeInTheDocument();
  });

  it('gives an admin User Management and System Statistics', async () => {
    const { user } = renderApp({ route: '/', preloadedState: signedInState(ADMIN) });
    await user.click(await screen.findByRole('button', { name: 'Account menu' }));
    expect(screen.getByRole('link', { name: 'User Management' })).toHaveAttribute('href', '/admin/users');
    expect(screen.getByRole('link', { name: 'System Statistics' })).toHaveAttribute('href', '/admin/statistics');
  });

  it('mobile menu toggles with aria-expanded and offers API Reference and System Settings for admins', async () => {
    const { user } = renderApp({ route: '/', preloadedState: signedInState(ADMIN) });
    const burger = await screen.findByRole('button', { name: 'Open menu' });
    expect(burger).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('navigation', { name: 'Mobile' })).not.toBeInTheDocument();
    await user.click(burger);
    expect(screen.getByRole('button', { name: 'Close menu' })).toHaveAttribute('aria-expanded', 'true');
    const mobile = screen.getByRole('navigation', { name: 'Mobile' });
    expect(within(mobile).getByRole('link', { name: 'API Reference' })).toHaveAttribute('href', '/docs/api');
    expect(within(mobile).getByRole('link', { name: 'System Settings' })).toHaveAttribute('href', '/admin/settings');
  });

  it('mobile menu has no System Settings for a regular user', async () => {
    const { user } = renderApp({ route: '/', preloadedState: signedInState(ANN) });
    await user.click(await screen.findByRole('button', { name: 'Open menu' }));
    const mobile = screen.getByRole('navigation', { name: 'Mobile' });
    expect(within(mobile).queryByRole('link', { name: 'System Settings' })).not.toBeInTheDocument();
    expect(within(mobile).getByRole('link', { name: 'API Reference' })).toBeInTheDocument();
  });
});
