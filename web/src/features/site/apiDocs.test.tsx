import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render';
import { API_GROUPS } from './apiReference';

describe('/docs/api-documentation', () => {
  it('documents the public API: the key header, the token exchange, plans, limits and examples', async () => {
    renderApp({ route: '/docs/api-documentation' });
    const guide = await screen.findByRole('region', { name: 'Public API for integrators' });
    expect(guide).toHaveTextContent('X-API-Key: ps_live_...');
    expect(guide).toHaveTextContent('POST /api/v1/auth/token');
    expect(guide).toHaveTextContent('X-RateLimit-Remaining');
    expect(guide).toHaveTextContent('Retry-After');
    const plans = guide.querySelector('dl[aria-label="Plans"]');
    expect(plans).toHaveTextContent('Standard100 requests a day (every new account)');
    expect(plans).toHaveTextContent('Premium1,000 requests a day');
    expect(plans).toHaveTextContent('EnterpriseA custom number of requests a day');
    expect(guide).toHaveTextContent('curl -H "X-API-Key: $PERILSCOPE_API_KEY"');
    expect(guide).toHaveTextContent('import os, httpx');

    const v1 = screen.getByRole('region', { name: 'Public API v1' });
    for (const path of ['/api/v1/auth/token', '/api/v1/auth/verify', '/api/v1/risk-assessment?address=', '/api/v1/search/address', '/api/v1/data/risk/{address_id}', '/api/v1/data/history/{address_id}']) {
      expect(v1).toHaveTextContent(path);
    }
  });

  it('lists the key management calls and the admin plan call', () => {
    const paths = API_GROUPS.flatMap((group) => group.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`));
    expect(paths).toEqual(
      expect.arrayContaining(['GET /api/api-keys', 'POST /api/api-keys', 'DELETE /api/api-keys/{id}', 'POST /api/admin/update-user-plan']),
    );
  });
});
