import { CodeBlock, DocsSection, type DocsSectionLink } from './DocsSection';
import { PublicEndpoints } from './PublicEndpoints';
import { CURL_BATCH, CURL_LOOKUP, CURL_TOKEN, NODE_VERIFY, PYTHON_BATCH, PYTHON_LOOKUP, PYTHON_VERIFY } from './publicApiExamples';
import { API_PLANS, ERROR_BODY_EXAMPLE, PUBLIC_ERRORS, SIGNATURE_HEADER, UNAUTHENTICATED_EXAMPLES, WEBHOOK_EXAMPLE } from './publicApiReference';

const SECTION = {
  authentication: { id: 'authentication', title: 'Authentication and scopes' },
  limits: { id: 'plans-and-limits', title: 'Plans and limits' },
  endpoints: { id: 'endpoints', title: 'Endpoints' },
  idempotency: { id: 'idempotency', title: 'Idempotency' },
  errors: { id: 'errors', title: 'Errors' },
  webhooks: { id: 'webhooks', title: 'Webhooks' },
  examples: { id: 'examples', title: 'Examples: a batch from submission to XLSX' },
} satisfies Record<string, DocsSectionLink>;

/** The sections of the public API guide, in order, for the page's contents. */
export const PUBLIC_API_SECTIONS: DocsSectionLink[] = Object.values(SECTION);

/** The public API (/api/v1) for integrators: keys, limits, endpoints, idempotency, errors, webhooks. */
export function PublicApiGuide() {
  return (
    <>
      <DocsSection section={SECTION.authentication}>
        <ul>
          <li>
            Create a key on <a href="/settings">Settings</a>, with the <code>read</code> scope for look-ups and{' '}
            <code>batch</code> for batches and exports (the webhook deliveries need <code>read</code>). It is shown once; we keep only its hash. Revoking it stops it at once.
          </li>
          <li>
            Send it as <code>X-API-Key: ps_live_...</code> on every call under <code>/api/v1</code>, or exchange it with{' '}
            <code>POST /api/v1/auth/token</code> for a bearer token of 15 minutes and send{' '}
            <code>Authorization: Bearer &lt;token&gt;</code>. Tokens of the web app are not accepted here, nor API tokens in the web app.
          </li>
          <li>A call that needs a scope the key or token lacks answers 403 with code <code>insufficient_scope</code>.</li>
          <li>
            Without a valid credential, 401, and its <code>code</code> says which: <code>missing_credentials</code> (neither
            header was sent), <code>invalid_api_key</code> (the key is unknown or revoked, also for a token whose key was
            revoked since) or <code>invalid_token</code> (the token is not ours, or has expired: get a new one).
          </li>
        </ul>
        {UNAUTHENTICATED_EXAMPLES.map(([code, body]) => <CodeBlock key={code} caption={`401 ${code}`} code={body} />)}
        <CodeBlock caption="curl: one address" code={CURL_LOOKUP} />
        <CodeBlock caption="curl: a bearer token" code={CURL_TOKEN} />
        <CodeBlock caption="Python (httpx): one address" code={PYTHON_LOOKUP} />
      </DocsSection>

      <DocsSection section={SECTION.limits}>
        <dl className="kv-grid" aria-label="Plans">
          {API_PLANS.map(([plan, limit]) => (
            <div key={plan}><dt>{plan}</dt><dd>{limit}</dd></div>
          ))}
        </dl>
        <ul>
          <li>Each address looked up counts as one request: a batch of 250 addresses uses 250.</li>
          <li>The count starts again at midnight UTC. Administrators set a user&apos;s plan.</li>
          <li>
            Every answer says where you stand, errors included (400, 403, 404, 409, 413, 429): <code>X-RateLimit-Limit</code>,{' '}
            <code>X-RateLimit-Remaining</code> and <code>X-RateLimit-Reset</code> (when the count starts again, in seconds
            since the epoch). A 401 has none: without a valid credential there is no caller to count.
          </li>
          <li>Past the limit: <code>429</code> with <code>Retry-After</code> (seconds) and code <code>daily_limit_reached</code>.</li>
          <li>
            The listings (<code>/data/history</code>, <code>/exports</code>, <code>/webhooks/deliveries</code>) come newest first,
            a page at a time: send the answer&apos;s <code>next_offset</code> as <code>offset</code> for the next page
            (null on the last). A query parameter an operation does not read is a 400 (<code>unknown_query_parameter</code>), never ignored.
          </li>
        </ul>
      </DocsSection>

      <DocsSection section={SECTION.endpoints}>
        <PublicEndpoints />
      </DocsSection>

      <DocsSection section={SECTION.idempotency}>
        <p>
          Send an <code>Idempotency-Key</code> header (1 to 255 visible ASCII characters, for example a UUID) on the
          POSTs (<code>/auth/token</code>, <code>/search/batch</code>, <code>/batch-assessment</code>,{' '}
          <code>/export/create</code>) so a retry after a timeout is safe. Keys are yours alone; another user&apos;s same key is another key.
        </p>
        <ul>
          <li>
            The same key with the same body within 24 hours returns the first answer, and charges nothing twice. It comes
            with its first status, body and <code>X-RateLimit-*</code> and <code>Location</code> headers, and the header{' '}
            <code>Idempotent-Replayed: true</code>. Bodies are compared as JSON: spacing and key order do not matter.
          </li>
          <li>The same key with another path or body: <code>409</code> with code <code>idempotency_key_reused</code>.</li>
          <li>The same key while the first request is still running: <code>409</code> with code <code>idempotency_key_in_progress</code>; retry shortly.</li>
          <li>Only successful answers are kept: after a refusal (400, 404, 429...), which charged nothing, the same key may be sent again.</li>
          <li>A key that is not 1 to 255 visible ASCII characters: <code>400</code> with code <code>invalid_idempotency_key</code>.</li>
        </ul>
      </DocsSection>

      <DocsSection section={SECTION.errors}>
        <p>Every error has the same body; <code>details</code> is there only when it helps, and <code>request_id</code> is what to quote to support.</p>
        <CodeBlock caption="Error body {status, error, request_id, code, details?}" code={ERROR_BODY_EXAMPLE} />
        <dl className="kv-grid docs-errors">
          {PUBLIC_ERRORS.map(([status, meaning]) => <div key={status}><dt>{status}</dt><dd>{meaning}</dd></div>)}
        </dl>
      </DocsSection>

      <DocsSection section={SECTION.webhooks}>
        <p>
          When a batch with a <code>callback_url</code> ends, PerilScope POSTs a JSON event to it. Answer with a 2xx
          within 10 seconds; other answers and timeouts are retried with backoff for 24 hours. Every attempt is listed
          on <a href="/settings">Settings</a> and by <code>GET /api/v1/webhooks/deliveries</code>.
        </p>
        <ul>
          <li><code>X-PerilScope-Event</code>: <code>batch.completed</code> or <code>batch.failed</code>.</li>
          <li><code>X-PerilScope-Delivery</code>: the delivery&apos;s id, the same on every retry (use it to ignore duplicates).</li>
          <li>
            <code className="docs-wrap">{SIGNATURE_HEADER}</code>, signed with your signing secret (<code>whsec_...</code>),
            which you reveal and rotate on <a href="/settings">Settings</a>.
          </li>
          <li>
            Callback URLs must be public <code>http</code> or <code>https</code> URLs: no user name or password in them,
            and no private, loopback or link-local addresses (checked after DNS resolution); others answer 400 with code{' '}
            <code>callback_url_refused</code>.
          </li>
        </ul>
        <p>
          The body&apos;s <code>id</code> is the delivery&apos;s id; <code>data.status</code> is <code>done</code> or{' '}
          <code>failed</code>, <code>data.export_id</code> is the batch&apos;s export id (its job id) and{' '}
          <code>data.download_url</code> is null when the batch failed. The body is the same bytes at every attempt; only the signature changes.
        </p>
        <CodeBlock caption="The event (body: {id, type, created_at, data})" code={WEBHOOK_EXAMPLE} />
        <h3>Verifying a signature</h3>
        <ol>
          <li>Read <code>t</code> and <code>v1</code> from <code>X-PerilScope-Signature</code>.</li>
          <li>Reject the event when <code>t</code> is more than 5 minutes from your clock (a replay).</li>
          <li>Compute the HMAC-SHA256 of <code>&lt;t&gt;.&lt;raw body&gt;</code> with your secret, in hex, over the body exactly as received.</li>
          <li>Compare it with <code>v1</code> in constant time.</li>
        </ol>
        <CodeBlock caption="Python (hmac, hashlib)" code={PYTHON_VERIFY} />
        <CodeBlock caption="Node.js (crypto)" code={NODE_VERIFY} />
      </DocsSection>

      <DocsSection section={SECTION.examples}>
        <p>Submit a batch, poll its status until it is <code>done</code> (or wait for the webhook), ask for the XLSX export with{' '}
          <code>POST /api/v1/export/create</code> and download the <code>export_id</code> it answers.</p>
        <CodeBlock caption="curl" code={CURL_BATCH} />
        <CodeBlock caption="Python (httpx)" code={PYTHON_BATCH} />
      </DocsSection>
    </>
  );
}
