import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../test/render';
import { server } from '../../test/server';

vi.mock('../../app/browser', () => ({ fullPageNavigate: vi.fn() }));
const { fullPageNavigate } = await import('../../app/browser');

describe('Third-party sign-in', () => {
  it('Continue with {name} does a full-page navigation to /api/auth/oidc/{id}/login', async () => {
    server.use(
      http.get('/api/auth/providers', () =>
        HttpResponse.json({
          providers: [
            { id: 'google', name: 'Google' },
            { id: 'github', name: 'GitHub' },
          ],
        }),
      ),
    );
    const { user } = renderApp({ route: '/signup' });
    await user.click(await screen.findByRole('button', { name: 'Continue with GitHub' }));
    expect(fullPageNavigate).toHaveBeenCalledWith('/api/auth/oidc/github/login');
    expect(screen.getByRole('button', { name: 'Continue with Google' })).toBeInTheDocument();
  });
});
