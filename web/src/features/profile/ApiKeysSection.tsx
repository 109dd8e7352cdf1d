import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { InlineConfirm } from '../../components/InlineConfirm';
import { Spinner } from '../../components/Spinner';
import { TextField } from '../../components/TextField';
import { useCopyText } from '../../lib/useCopyText';
import {
  useApiKeysQuery,
  useCreateApiKeyMutation,
  useRevokeApiKeyMutation,
  type ApiDailyUse,
  type ApiKey,
  type ApiScope,
  type CreatedApiKey,
} from './apiKeysApi';
import './apiKeys.css';

export const API_KEYS_INTRO =
  'Integrators call the public API under /api/v1 with a key, sent as the X-API-Key header. Each address looked up counts as one request against your plan.';
export const KEY_SHOWN_ONCE =
  'Copy this key now and keep it somewhere safe: it is not shown again. Anyone with it can use the API as you.';
export const NO_KEYS = 'You have no API keys yet.';
const SCOPE_LABELS: Record<ApiScope, string> = {
  read: 'read (look up addresses)',
  batch: 'batch (batches of addresses)',
};
const PLAN_NAMES = { standard: 'Standard', premium: 'Premium', enterprise: 'Enterprise' } as const;

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : 'Never';
}

/** /settings: the public API's keys (create, list, revoke) and today's use against the plan. */
export function ApiKeysSection() {
  const { data, isLoading, error } = useApiKeysQuery();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  let body;
  if (isLoading) {
    body = <Spinner size="sm" label="Loading..." />;
  } else if (error || !data) {
    body = <Banner kind="error">{errorMessage(error, 'Could not load your API keys.')}</Banner>;
  } else {
    body = (
      <>
        <DailyUse usage={data.usage} />
        {created ? (
          <NewKey created={created} onDone={() => setCreated(null)} />
        ) : (
          <CreateKeyForm
            onCreated={(answer) => {
              setNotice(null);
              setCreated(answer);
            }}
          />
        )}
        <KeyList keys={data.keys} onRevoked={(key) => setNotice(`Revoked ${key.name}: it no longer works.`)} />
      </>
    );
  }

  return (
    <section className="card api-keys" aria-labelledby="api-keys-title">
      <h2 id="api-keys-title" className="card-title">
        API keys
      </h2>
      <p>{API_KEYS_INTRO}</p>
      {notice && <Banner kind="success">{notice}</Banner>}
      {body}
    </section>
  );
}

function DailyUse({ usage }: { usage: ApiDailyUse }) {
  return (
    <div className="api-usage" role="group" aria-label="Today's API use">
      <p>
        <strong>{PLAN_NAMES[usage.plan]}</strong> plan: {usage.used.toLocaleString()} of {usage.limit.toLocaleString()}{' '}
        requests used today ({usage.remaining.toLocaleString()} left).
      </p>
      <progress max={usage.limit} value={Math.min(usage.used, usage.limit)} aria-label="API requests used today" />
      <p className="muted small">The count starts again at {new Date(usage.resets_at).toLocaleString()} (midnight UTC).</p>
    </div>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedApiKey) => void }) {
  const [createKey, { isLoading }] = useCreateApiKeyMutation();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiScope[]>(['read']);
  const [nameError, setNameError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  function toggle(scope: ApiScope, on: boolean) {
    setScopes((current) => (on ? [...current.filter((s) => s !== scope), scope] : current.filter((s) => s !== scope)));
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    const missingName = name.trim() === '';
    setNameError(missingName ? 'Give the key a name, for example the system that will use it.' : null);
    setError(scopes.length === 0 ? 'Choose at least one scope.' : null);
    if (missingName || scopes.length === 0) return;
    try {
      onCreated(await createKey({ name: name.trim(), scopes }).unwrap());
      setName('');
    } catch (failure) {
      setError(errorMessage(failure, 'Could not create the key. Please try again.'));
    }
  }

  return (
    <form className="form form-narrow" onSubmit={submit} noValidate aria-busy={isLoading} aria-label="Create an API key">
      <TextField
        label="Key name"
        name="api-key-name"
        maxLength={100}
        value={name}
        error={nameError}
        disabled={isLoading}
        onChange={(event) => setName(event.target.value)}
      />
      <fieldset className="api-scopes">
        <legend>Scopes</legend>
        {(Object.keys(SCOPE_LABELS) as ApiScope[]).map((scope) => (
          <label key={scope} className="checkbox">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              disabled={isLoading}
              onChange={(event) => toggle(scope, event.target.checked)}
            />{' '}
            {SCOPE_LABELS[scope]}
          </label>
        ))}
      </fieldset>
      {error && <Banner kind="error">{error}</Banner>}
      <button type="submit" className="btn btn-primary" disabled={isLoading}>
        {isLoading ? 'Creating...' : 'Create key'}
      </button>
    </form>
  );
}

function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copied, copy] = useCopyText('Key copied.', 'Copying is blocked in this browser: select the key and copy it by hand.');

  return (
    <div className="api-new-key">
      <Banner kind="warning">{KEY_SHOWN_ONCE}</Banner>
      <p>
        Your new key <strong>{created.api_key.name}</strong>:
      </p>
      <code className="secret-value" aria-label="New API key">
        {created.key}
      </code>
      {copied && (
        <p role="status" className="muted small">
          {copied}
        </p>
      )}
      <div className="button-row">
        <button type="button" className="btn btn-outline" onClick={() => void copy(created.key)}>
          Copy
        </button>
        <button type="button" className="btn btn-primary" onClick={onDone}>
          I have saved my key
        </button>
      </div>
    </div>
  );
}

function KeyList({ keys, onRevoked }: { keys: ApiKey[]; onRevoked: (key: ApiKey) => void }) {
  const [revokeKey, { isLoading: revoking }] = useRevokeApiKeyMutation();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function revoke(key: ApiKey) {
    try {
      await revokeKey(key.id).unwrap();
      onRevoked(key);
    } catch (failure) {
      setError(`Could not revoke ${key.name}: ${errorMessage(failure, 'the server did not answer')}`);
    } finally {
      setConfirming(null);
    }
  }

  if (keys.length === 0) return <p className="muted">{NO_KEYS}</p>;
  return (
    <>
      {error && <Banner kind="error">{error}</Banner>}
      <div className="table-scroll">
        <table className="table api-keys-table" aria-label="Your API keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id}>
                <td data-label="Name">{key.name}</td>
                <td data-label="Key">
                  <code>{key.prefix}…</code>
                </td>
                <td data-label="Scopes">{key.scopes.join(', ')}</td>
                <td data-label="Created">{when(key.created_at)}</td>
                <td data-label="Last used">{when(key.last_used_at)}</td>
                <td>
                  {confirming === key.id ? (
                    <InlineConfirm
                      label={`Revoke ${key.name}?`}
                      message="Revoke this key? Programs using it stop working at once."
                      action="Revoke"
                      busyAction="Revoking..."
                      busy={revoking}
                      onConfirm={() => void revoke(key)}
                      onCancel={() => setConfirming(null)}
                    />
                  ) : (
                    <button
                      type="button"
                      className="btn btn-outline btn-sm"
                      aria-label={`Revoke ${key.name}`}
                      onClick={() => {
                        setError(null);
                        setConfirming(key.id);
                      }}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
