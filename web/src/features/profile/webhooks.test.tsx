import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { ANN, callCount, db } from '../../test/db';
import { WEBHOOK_SECRETS } from '../../test/handlers';
import { renderApp, signedInState } from '../../test/render';
import { server } from '../../test/server';
import { NO_DELIVERIES, ROTATED } from './WebhooksSection';
import type { WebhookDelivery } from './webhooksApi';

const section = async () => within(await screen.findByRole('region', { name: 'Webhooks' }));

const RETRYING: WebhookDelivery = {
  id: 'd-2',
  job_id: 'job-2',
  event: 'batch.failed',
  url: 'https://hooks.example.com/perilscope',
  status: 'pending',
  created_at: '2026-11-24T10:00:00Z',
  next_attempt_at: '2026-11-24T10:06:00Z',
  attempt_count: 2,
  attempts: [
    { attempted_at: '2026-11-24T10:01:00Z', duration_ms: 10_000, status_code: null, succeeded: false, error: 'No answer within 10 seconds.' },
    { attempted_at: '2026-11-24T10:00:00Z', duration_ms: 84, status_code: 500, succeeded: false, error: 'The receiver answered HTTP 500; a 2xx answer is success.' },
  ],
};
const DELIVERED: WebhookDelivery = {
  id: 'd-1',
  job_id: 'job-1',
  event: 'batch.completed',
  url: 'https://hooks.example.com/perilscope',
  status: 'succeeded',
  created_at: '2026-11-23T10:00:00Z',
  next_attempt_at: null,
  attempt_count: 1,
  attempts: [{ attempted_at: '2026-11-23T10:00:00Z', duration_ms: 120, status_code: 200, succeeded: true, error: null }],
};

describe('Webhooks on /settings', () => {
  it('keeps the signing secret hidden until revealed, then copies it', async () => {
    const { user } = renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const webhooks = await section();

    expect(webhooks.getByLabelText('Signing secret value')).not.toHaveTextContent(WEBHOOK_SECRETS[0]!);
    expect(callCount('/api/webhooks/secret')).toBe(0);

    await user.click(webhooks.getByRole('button', { name: 'Reveal' }));
    expect(await webhooks.findByText(WEBHOOK_SECRETS[0]!)).toBeInTheDocument();
    await user.click(webhooks.getByRole('button', { name: 'Copy' }));
    expect(await webhooks.findByText('Secret copied.')).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(WEBHOOK_SECRETS[0]);

    await user.click(webhooks.getByRole('button', { name: 'Hide' }));
    expect(webhooks.queryByText(WEBHOOK_SECRETS[0]!)).not.toBeInTheDocument();
  });

  it('rotates the secret only after confirmation and shows the new one', async () => {
    const { user } = renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const webhooks = await section();

    await user.click(webhooks.getByRole('button', { name: 'Rotate secret' }));
    await user.click(within(webhooks.getByRole('group', { name: 'Rotate the signing secret?' })).getByRole('button', { name: 'Cancel' }));
    expect(callCount('/api/webhooks/secret/rotate')).toBe(0);

    await user.click(webhooks.getByRole('button', { name: 'Rotate secret' }));
    await user.click(within(webhooks.getByRole('group', { name: 'Rotate the signing secret?' })).getByRole('button', { name: 'Rotate' }));

    expect(await webhooks.findByText(ROTATED)).toBeInTheDocument();
    expect(callCount('/api/webhooks/secret/rotate')).toBe(1);
    expect(await webhooks.findByText(WEBHOOK_SECRETS[1]!)).toBeInTheDocument();
  });

  it('lists recent deliveries with their status and every attempt, newest first', async () => {
    db.webhookDeliveries.set(ANN.email, [RETRYING, DELIVERED]);
    renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const webhooks = await section();

    const list = await webhooks.findByRole('list', { name: 'Recent webhook deliveries' });
    const [retrying, delivered] = within(list).getAllByRole('listitem', { name: /^batch\./ });
    expect(retrying).toHaveTextContent('batch.failed');
    expect(retrying).toHaveTextContent('Retrying');
    expect(retrying).toHaveTextContent('2 attempts; next attempt');
    const attempts = within(retrying!).getAllByRole('listitem');
    expect(attempts[0]).toHaveTextContent('No answer in 10,000 ms. No answer within 10 seconds.');
    expect(attempts[1]).toHaveTextContent('HTTP 500 in 84 ms');
    expect(delivered).toHaveTextContent('Delivered');
    expect(delivered).toHaveTextContent('1 attempt');
    expect(within(delivered!).getByRole('listitem')).toHaveTextContent('HTTP 200 in 120 ms. Delivered.');
  });

  it('says when there are no deliveries yet', async () => {
    renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    expect(await (await section()).findByText(NO_DELIVERIES)).toBeInTheDocument();
  });

  it('shows the server’s message when the deliveries cannot be loaded', async () => {
    server.use(
      http.get('/api/webhooks/deliveries', () =>
        HttpResponse.json({ status: 'error', error: 'The database is busy. Please try again in a moment.' }, { status: 503 }),
      ),
    );
    renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const webhooks = await section();
    expect(await webhooks.findByText('The database is busy. Please try again in a moment.')).toBeInTheDocument();
  });
});
