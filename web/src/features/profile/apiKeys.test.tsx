import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ANN, callCount, db } from '../../test/db';
import { NEW_API_KEY } from '../../test/handlers';
import { renderApp, signedInState } from '../../test/render';
import { KEY_SHOWN_ONCE, NO_KEYS } from './ApiKeysSection';

const section = async () => within(await screen.findByRole('region', { name: 'API keys' }));

describe('API keys on /settings', () => {
  it("shows today's use against the plan", async () => {
    db.apiUsedToday.set(ANN.email, 37);
    renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const keys = await section();
    const usage = await keys.findByRole('group', { name: "Today's API use" });
    expect(usage).toHaveTextContent('Standard plan: 37 of 100 requests used today (63 left).');
    expect(within(usage).getByRole('progressbar', { name: 'API requests used today' })).toHaveAttribute('value', '37');
    expect(keys.getByText(NO_KEYS)).toBeInTheDocument();
  });

  it('creates a key with a name and scopes, shows it once with a Copy button, then lists only its prefix', async () => {
    const { user } = renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const keys = await section();
    await keys.findByRole('group', { name: "Today's API use" });

    await user.click(keys.getByRole('button', { name: 'Create key' }));
    expect(await keys.findByText(/Give the key a name/)).toBeInTheDocument();
    expect(callCount('/api/api-keys:create')).toBe(0);

    await user.type(keys.getByLabelText('Key name'), 'Rating tool');
    await user.click(keys.getByLabelText('read (look up addresses)'));
    await user.click(keys.getByRole('button', { name: 'Create key' }));
    expect(await keys.findByText('Choose at least one scope.')).toBeInTheDocument();
    expect(callCount('/api/api-keys:create')).toBe(0);

    await user.click(keys.getByLabelText('read (look up addresses)'));
    await user.click(keys.getByLabelText('batch (batches of addresses)'));
    await user.click(keys.getByRole('button', { name: 'Create key' }));

    expect(await keys.findByText(KEY_SHOWN_ONCE)).toBeInTheDocument();
    expect(keys.getByLabelText('New API key')).toHaveTextContent(NEW_API_KEY);
    expect(db.lastBodies['/api/api-keys:create']).toEqual({ name: 'Rating tool', scopes: ['read', 'batch'] });
    await user.click(keys.getByRole('button', { name: 'Copy' }));
    expect(await keys.findByText('Key copied.')).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(NEW_API_KEY);

    const table = await keys.findByRole('table', { name: 'Your API keys' });
    const row = within(table).getAllByRole('row')[1]!;
    expect(row).toHaveTextContent('Rating tool');
    expect(row).toHaveTextContent(`${NEW_API_KEY.slice(0, 12)}…`);
    expect(row).toHaveTextContent('batch, read');
    expect(row).toHaveTextContent('Never');

    await user.click(keys.getByRole('button', { name: 'I have saved my key' }));
    expect(keys.queryByText(NEW_API_KEY)).not.toBeInTheDocument(); // never shown again
    expect(keys.getByRole('button', { name: 'Create key' })).toBeInTheDocument();
  });

  it('revokes a key only after confirmation', async () => {
    db.apiKeys.set(ANN.email, [
      { id: 'key-9', name: 'Old tool', prefix: 'ps_live_Zz9y', scopes: ['read'], created_at: '2026-11-01T10:00:00Z', last_used_at: '2026-11-20T10:00:00Z' },
    ]);
    const { user } = renderApp({ route: '/settings', preloadedState: signedInState(ANN) });
    const keys = await section();

    await user.click(await keys.findByRole('button', { name: 'Revoke Old tool' }));
    const confirm = keys.getByRole('group', { name: 'Revoke Old tool?' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(callCount('/api/api-keys:revoke')).toBe(0);

    await user.click(keys.getByRole('button', { name: 'Revoke Old tool' }));
    await user.click(within(keys.getByRole('group', { name: 'Revoke Old tool?' })).getByRole('button', { name: 'Revoke' }));

    expect(await keys.findByText('Revoked Old tool: it no longer works.')).toBeInTheDocument();
    expect(callCount('/api/api-keys:revoke')).toBe(1);
    expect(await keys.findByText(NO_KEYS)).toBeInTheDocument();
  });
});
