import { API_PLANS } from './apiReference';

const CURL_EXAMPLE = `curl -H "X-API-Key: $PERILSCOPE_API_KEY" \\
  --get --data-urlencode "address=701 5th Ave, Seattle, WA 98104" \\
  https://perilscope.example/api/v1/risk-assessment`;

const PYTHON_EXAMPLE = `import os, httpx

api = httpx.Client(base_url="https://perilscope.example/api/v1",
                   headers={"X-API-Key": os.environ["PERILSCOPE_API_KEY"]})
answer = api.get("/risk-assessment", params={"address": "701 5th Ave, Seattle, WA 98104"})
if answer.status_code == 429:
    print("Daily limit reached; try again in", answer.headers["Retry-After"], "seconds")
else:
    answer.raise_for_status()
    risk = answer.json()
    print(risk["total_score"], risk["risk_level"], [r["type"] for r in risk["top_risks"]])
    print("requests left today:", answer.headers["X-RateLimit-Remaining"])`;

/** How an integrator signs in to the public API (/api/v1), its plans and limits, and two examples. */
export function PublicApiGuide() {
  return (
    <section className="card" aria-labelledby="public-api-title">
      <h2 id="public-api-title" className="card-title">
        Public API for integrators
      </h2>
      <ul>
        <li>
          Create a key on <a href="/settings">Settings</a> (with the <code>read</code> scope for look-ups, <code>batch</code>{' '}
          for batches). It is shown once; we keep only its hash. Revoking it stops it at once.
        </li>
        <li>
          Send it as <code>X-API-Key: ps_live_...</code> on every call under <code>/api/v1</code>, or exchange it with{' '}
          <code>POST /api/v1/auth/token</code> for a bearer token of 15 minutes (<code>Authorization: Bearer &lt;token&gt;</code>).
          Tokens of the web app are not accepted here, nor API tokens in the web app.
        </li>
        <li>
          Each address looked up counts one request against your plan&apos;s daily limit, which starts again at midnight
          UTC. Every answer says where you stand: <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code> and{' '}
          <code>X-RateLimit-Reset</code> (seconds since the epoch). Past the limit: <code>429</code> with{' '}
          <code>Retry-After</code>.
        </li>
      </ul>
      <dl className="kv-grid" aria-label="Plans">
        {API_PLANS.map(([plan, limit]) => (
          <div key={plan}>
            <dt>{plan}</dt>
            <dd>{limit}</dd>
          </div>
        ))}
      </dl>
      <h3>curl</h3>
      <pre className="code-block">
        <code>{CURL_EXAMPLE}</code>
      </pre>
      <h3>Python</h3>
      <pre className="code-block">
        <code>{PYTHON_EXAMPLE}</code>
      </pre>
    </section>
  );
}
