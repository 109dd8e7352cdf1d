import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { InlineConfirm } from '../../components/InlineConfirm';
import { Spinner } from '../../components/Spinner';
import { useCopyText } from '../../lib/useCopyText';
import {
  useRotateWebhookSecretMutation,
  useWebhookDeliveriesQuery,
  useWebhookSecretQuery,
  type WebhookAttempt,
  type WebhookDelivery,
} from './webhooksApi';
import './webhooks.css';

export const WEBHOOKS_INTRO =
  'When a batch sent through the API with a callback_url finishes or fails, PerilScope POSTs a JSON event to that URL, signed with your signing secret in the X-PerilScope-Signature header. Unanswered events are retried for 24 hours.';
export const ROTATE_WARNING =
  'Rotate the signing secret? Events are signed with the new one at once: receivers that check the old one will refuse them until you give them the new one.';
export const ROTATED = 'New signing secret made. Events are signed with it from now on: update your receivers.';
export const NO_DELIVERIES = 'No webhook deliveries yet. They appear here when a batch with a callback_url ends.';
const STATUS_LABELS: Record<WebhookDelivery['status'], string> = {
  pending: 'Retrying',
  succeeded: 'Delivered',
  failed: 'Failed',
};

function when(iso: string): string {
  return new Date(iso).toLocaleString();
}

/** /settings: the webhook signing secret (hidden until revealed, copy, rotate) and recent deliveries. */
export function WebhooksSection() {
  return (
    <section className="card webhooks" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title" className="card-title">
        Webhooks
      </h2>
      <p>{WEBHOOKS_INTRO}</p>
      <SigningSecret />
      <Deliveries />
    </section>
  );
}

function SigningSecret() {
  const [revealed, setRevealed] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [rotateError, setRotateError] = useState<string | null>(null);
  const { data, isFetching, error } = useWebhookSecretQuery(undefined, { skip: !revealed });
  const [rotate, { isLoading: rotating }] = useRotateWebhookSecretMutation();
  const [copied, copy] = useCopyText('Secret copied.', 'Copying is blocked in this browser: select the secret and copy it by hand.');

  async function confirmRotate() {
    setRotateError(null);
    try {
      await rotate().unwrap();
      setNotice(ROTATED);
      setRevealed(true);
    } catch (failure) {
      setRotateError(errorMessage(failure, 'Could not rotate the secret. Please try again.'));
    } finally {
      setConfirming(false);
    }
  }

  let value;
  if (!revealed) {
    value = (
      <code className="secret-value" aria-label="Signing secret value">
        whsec_••••••••••••
      </code>
    );
  } else if (isFetching && !data) {
    value = <Spinner size="sm" label="Loading..." />;
  } else if (error || !data) {
    value = <Banner kind="error">{errorMessage(error, 'Could not load your signing secret.')}</Banner>;
  } else {
    value = (
      <code className="secret-value" aria-label="Signing secret value">
        {data.secret}
      </code>
    );
  }

  return (
    <div role="group" aria-labelledby="webhook-secret-title">
      <h3 id="webhook-secret-title">Signing secret</h3>
      {notice && <Banner kind="success">{notice}</Banner>}
      {rotateError && <Banner kind="error">{rotateError}</Banner>}
      {value}
      {copied && (
        <p role="status" className="muted small">
          {copied}
        </p>
      )}
      {confirming ? (
        <InlineConfirm
          className="webhook-confirm"
          label="Rotate the signing secret?"
          message={ROTATE_WARNING}
          action="Rotate"
          busyAction="Rotating..."
          busy={rotating}
          onConfirm={() => void confirmRotate()}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <div className="button-row">
          {revealed ? (
            <>
              <button
                type="button"
                className="btn btn-outline btn-sm"
                disabled={!data}
                onClick={() => data && void copy(data.secret)}
              >
                Copy
              </button>
              <button type="button" className="btn btn-outline btn-sm" onClick={() => setRevealed(false)}>
                Hide
              </button>
            </>
          ) : (
            <button type="button" className="btn btn-outline btn-sm" onClick={() => setRevealed(true)}>
              Reveal
            </button>
          )}
          <button
            type="button"
            className="btn btn-outline btn-sm"
            onClick={() => {
              setNotice(null);
              setConfirming(true);
            }}
          >
            Rotate secret
          </button>
        </div>
      )}
    </div>
  );
}

function Deliveries() {
  const { data, isLoading, error } = useWebhookDeliveriesQuery();

  let body;
  if (isLoading) {
    body = <Spinner size="sm" label="Loading..." />;
  } else if (error || !data) {
    body = <Banner kind="error">{errorMessage(error, 'Could not load your webhook deliveries.')}</Banner>;
  } else if (data.deliveries.length === 0) {
    body = <p className="muted">{NO_DELIVERIES}</p>;
  } else {
    body = (
      <ul className="webhook-deliveries" aria-label="Recent webhook deliveries">
        {data.deliveries.map((delivery) => (
          <DeliveryItem key={delivery.id} delivery={delivery} />
        ))}
      </ul>
    );
  }
  return (
    <div role="group" aria-labelledby="webhook-deliveries-title">
      <h3 id="webhook-deliveries-title">Recent deliveries</h3>
      {body}
    </div>
  );
}

function DeliveryItem({ delivery }: { delivery: WebhookDelivery }) {
  return (
    <li className="webhook-delivery" aria-label={`${delivery.event} of ${when(delivery.created_at)}`}>
      <div className="webhook-delivery-head">
        <strong>{delivery.event}</strong>
        <span className={`badge webhook-status-${delivery.status}`}>{STATUS_LABELS[delivery.status]}</span>
        <span className="muted small">{when(delivery.created_at)}</span>
      </div>
      <div className="webhook-url small">
        <code>{delivery.url}</code>
      </div>
      <p className="small muted">
        {delivery.attempt_count === 1 ? '1 attempt' : `${delivery.attempt_count} attempts`}
        {delivery.next_attempt_at && `; next attempt ${when(delivery.next_attempt_at)}`}
      </p>
      {delivery.attempts.length > 0 && (
        <ol className="webhook-attempts" aria-label="Attempts, newest first">
          {delivery.attempts.map((attempt, index) => (
            <li key={`${attempt.attempted_at}-${index}`}>{attemptText(attempt)}</li>
          ))}
        </ol>
      )}
    </li>
  );
}

function attemptText(attempt: WebhookAttempt): string {
  const answer = attempt.status_code === null ? 'No answer' : `HTTP ${attempt.status_code}`;
  const outcome = attempt.succeeded ? 'Delivered.' : attempt.error ?? 'Failed.';
  return `${when(attempt.attempted_at)}: ${answer} in ${attempt.duration_ms.toLocaleString()} ms. ${outcome}`;
}
