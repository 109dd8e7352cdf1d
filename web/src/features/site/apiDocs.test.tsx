import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render';
import { API_GROUPS } from './apiReference';

const PUBLIC_ENDPOINTS = [
  'POST /api/v1/auth/token',
  'GET /api/v1/auth/verify',
  'GET /api/v1/search/address',
  'GET /api/v1/data/risk/{address_id}',
  'GET /api/v1/data/history/{address_id}',
  'GET /api/v1/risk-assessment',
  'POST /api/v1/search/batch',
  'POST /api/v1/batch-assessment',
  'GET /api/v1/exports',
  'GET /api/v1/export/status/{export_id}',
  'POST /api/v1/export/create',
  'GET /api/v1/export/download/{export_id}',
  'GET /api/v1/webhooks/deliveries',
];

const PARAMETERS: Record<string, string[]> = {
  'POST /api/v1/auth/token': ['api_key', 'scope'],
  'GET /api/v1/search/address': ['query', 'limit', 'country'],
  'GET /api/v1/data/risk/{address_id}': ['address_id', 'include_occupants'],
  'GET /api/v1/data/history/{address_id}': ['from_date', 'to_date', 'limit', 'offset', 'next_offset'],
  'GET /api/v1/risk-assessment': ['address'],
  'POST /api/v1/search/batch': ['addresses: [{address, city, state, zip, fields?}]', 'fields: {name: text}', 'policy_no', 'address_index + 2', 'refused', 'include_details', 'callback_url', 'Idempotency-Key'],
  'POST /api/v1/batch-assessment': ['addresses: [{address, city, state, zip, fields?}]', 'fields: {name: text}', 'include_details', 'callback_url'],
  'GET /api/v1/exports': ['limit', 'offset', 'unknown_query_parameter'],
  'GET /api/v1/webhooks/deliveries': ['limit', 'offset'],
  'POST /api/v1/export/create': ['export_id', 'csv, xlsx, jsonl or parquet'],
};

describe.each([
  ['/docs/api', 'API Reference'],
  ['/docs/api-documentation', 'API Documentation'],
])('%s', (route, title) => {
  it('has a table of contents whose links lead to the sections', async () => {
    renderApp({ route });
    // The first render loads the lazy page: give it longer than the default second on a busy machine.
    await screen.findByRole('heading', { level: 1, name: title }, { timeout: 5000 });
    const contents = screen.getByRole('navigation', { name: 'Contents' });
    const links = within(contents).getAllByRole('link');
    expect(links.map((link) => link.textContent)).toEqual([
      'Authentication and scopes', 'Plans and limits', 'Endpoints', 'Idempotency', 'Errors', 'Webhooks',
      'Examples: a batch from submission to XLSX', 'The web app\u2019s own calls', 'Reference: the OpenAPI document',
    ]);
    for (const link of links) {
      const target = document.getElementById(link.getAttribute('href')!.slice(1));
      expect(target, link.textContent!).not.toBeNull();
      expect(target).toHaveAccessibleName(link.textContent!);
    }
  });

  it('documents every public endpoint with its parameters and an example answer', async () => {
    renderApp({ route });
    const endpoints = await screen.findByRole('region', { name: 'Endpoints' });
    for (const name of PUBLIC_ENDPOINTS) {
      const entry = within(endpoints).getByRole('article', { name });
      expect(within(entry).getByRole('heading', { level: 3 })).toHaveTextContent(name);
      expect(within(entry).getByText(/^Example answer/)).toBeInTheDocument();
      for (const parameter of PARAMETERS[name] ?? []) expect(entry).toHaveTextContent(parameter);
    }
    const batch = within(endpoints).getByRole('article', { name: 'POST /api/v1/batch-assessment' });
    for (const field of ['"status": "queued"', '"job_id"', '"export_id"', '"addresses": 3', '"requests_charged": 2', '"refused"', '"row": 4', '"eta_seconds"', '"status_url"']) {
      expect(batch).toHaveTextContent(field);
    }
    expect(batch).toHaveTextContent('Example answer (202)');
    const create = within(endpoints).getByRole('article', { name: 'POST /api/v1/export/create' });
    expect(create).toHaveTextContent('Example answer (200)');
    expect(create).toHaveTextContent('"export_id": "3f2b8c1e-5d4a-4e7b-9c1f-2a6d8e0b7c45.xlsx"');
    const download = within(endpoints).getByRole('article', { name: 'GET /api/v1/export/download/{export_id}' });
    expect(download).toHaveTextContent('409 with code export_not_ready');
    expect(download).toHaveTextContent('there is no format parameter');
    expect(within(download).queryByText('format', { selector: 'code' })).toBeNull();
    const deliveries = within(endpoints).getByRole('article', { name: 'GET /api/v1/webhooks/deliveries' });
    expect(deliveries).toHaveTextContent('Scope and cost: read; costs nothing');
  });

  it('states the authentication, the plans and limits and the rate-limit headers', async () => {
    renderApp({ route });
    const auth = await screen.findByRole('region', { name: 'Authentication and scopes' });
    expect(auth).toHaveTextContent('X-API-Key: ps_live_...');
    expect(auth).toHaveTextContent('POST /api/v1/auth/token for a bearer token of 15 minutes');
    expect(auth).toHaveTextContent('read scope for look-ups and batch for batches');
    for (const code of ['missing_credentials', 'invalid_api_key', 'invalid_token']) {
      expect(within(auth).getByText(`401 ${code}`)).toBeInTheDocument();
      expect(auth).toHaveTextContent(`"code": "${code}"`);
    }

    const limits = screen.getByRole('region', { name: 'Plans and limits' });
    const plans = limits.querySelector('dl[aria-label="Plans"]');
    expect(plans).toHaveTextContent('Standard100 requests a day (every new account)');
    expect(plans).toHaveTextContent('Premium1,000 requests a day');
    expect(plans).toHaveTextContent('EnterpriseA custom number of requests a day');
    expect(limits).toHaveTextContent('a batch of 250 addresses uses 250');
    expect(limits).toHaveTextContent('midnight UTC');
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) {
      expect(limits).toHaveTextContent(header);
    }
    expect(limits).toHaveTextContent('429 with Retry-After');
    expect(limits).toHaveTextContent('errors included (400, 403, 404, 409, 413, 429)');
    expect(limits).toHaveTextContent('A 401 has none');
    expect(limits).toHaveTextContent('send the answer\u2019s next_offset as offset'.replace('\u2019', "'"));
  });

  it('explains idempotency and the error body with every status', async () => {
    renderApp({ route });
    const idempotency = await screen.findByRole('region', { name: 'Idempotency' });
    expect(idempotency).toHaveTextContent('Idempotency-Key');
    expect(idempotency).toHaveTextContent('within 24 hours returns the first answer, and charges nothing twice');
    expect(idempotency).toHaveTextContent('409 with code idempotency_key_reused');
    expect(idempotency).toHaveTextContent('409 with code idempotency_key_in_progress');
    expect(idempotency).toHaveTextContent('Idempotent-Replayed: true');

    const errors = screen.getByRole('region', { name: 'Errors' });
    expect(errors).toHaveTextContent('{status, error, request_id, code, details?}');
    const statuses = [...errors.querySelectorAll('dt')].map((term) => term.textContent);
    expect(statuses).toEqual(['400', '401', '403', '404', '409', '413', '429']);
    expect(errors).toHaveTextContent('answers 404, never 403');
  });

  it('documents the webhook, its signature and how to verify it, with examples', async () => {
    renderApp({ route });
    const webhooks = await screen.findByRole('region', { name: 'Webhooks' });
    expect(webhooks).toHaveTextContent('X-PerilScope-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">');
    for (const text of ['X-PerilScope-Event', 'batch.completed', 'batch.failed', 'X-PerilScope-Delivery', 'whsec_',
      'within 10 seconds', 'backoff for 24 hours', 'more than 5 minutes', 'constant time', 'callback_url_refused',
      'no private, loopback or link-local addresses', '"download_url"', '"status_url"', '"rows"']) {
      expect(webhooks).toHaveTextContent(text);
    }
    expect(within(webhooks).getByText('Python (hmac, hashlib)')).toBeInTheDocument();
    expect(webhooks).toHaveTextContent('hmac.compare_digest(expected, received)');
    expect(webhooks).toHaveTextContent("crypto.timingSafeEqual");

    const examples = screen.getByRole('region', { name: 'Examples: a batch from submission to XLSX' });
    expect(examples).toHaveTextContent('curl -X POST "$API/batch-assessment"');
    expect(examples).toHaveTextContent('import os, time, uuid, httpx');
    expect(examples).toHaveTextContent('"format": "xlsx"');
    expect(examples).toHaveTextContent('/export/download/{xlsx[\'export_id\']}');
    expect(examples).not.toHaveTextContent('?format=');
    // Long lines scroll inside a focusable block, not the page.
    for (const block of examples.querySelectorAll('pre.code-block')) expect(block).toHaveAttribute('tabindex', '0');
    const openApi = screen.getByRole('region', { name: 'Reference: the OpenAPI document' });
    expect(within(openApi).getByRole('link', { name: '/schema' })).toHaveAttribute('href', '/schema');
  });
});

describe('the web app\u2019s own calls', () => {
  it('stay documented next to the public API, with their answers on the reference page', async () => {
    renderApp({ route: '/docs/api-documentation' });
    const webApp = await screen.findByRole('region', { name: 'The web app\u2019s own calls' });
    expect(within(webApp).getByRole('region', { name: 'Property lookup' })).toHaveTextContent('GET /api/nearby-search?address=');
    expect(within(webApp).getAllByRole('columnheader', { name: 'Answer' }).length).toBe(API_GROUPS.length);
  });

  it('lists the key management calls and the admin plan call', () => {
    const paths = API_GROUPS.flatMap((group) => group.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.path}`));
    expect(paths).toEqual(
      expect.arrayContaining(['GET /api/api-keys', 'POST /api/api-keys', 'DELETE /api/api-keys/{id}', 'POST /api/admin/update-user-plan']),
    );
  });
});
