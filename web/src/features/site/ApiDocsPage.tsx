import { DocsFrame } from './DocsFrame';
import { API_GROUPS, ERRORS } from './apiReference';
import { PublicApiGuide } from './PublicApiGuide';

/** /docs/api (overview) and /docs/api-documentation (reference): the real API, from one list. */
export default function ApiDocsPage({ mode }: { mode: 'overview' | 'reference' }) {
  const reference = mode === 'reference';
  return (
    <DocsFrame
      title={reference ? 'API Documentation' : 'API Reference'}
      lead={reference ? 'Every endpoint of the PerilScope API, with its parameters and answers.' : 'How the PerilScope API works, in brief.'}
    >
      <section className="card">
        <h2 className="card-title">Basics</h2>
        <ul>
          <li>JSON over HTTPS. Answers carry <code>status</code>: <code>success</code>, or <code>error</code> with an <code>error</code> message you can show.</li>
          <li>Sign in with <code>POST /api/auth/login</code> and send the access token as <code>Authorization: Bearer &lt;token&gt;</code>. Tokens last 15 minutes; <code>POST /api/auth/refresh</code> issues a new one.</li>
          <li>Each lookup or batch counts one search against your monthly limit (10 for regular accounts unless an administrator changes it; none for administrators).</li>
          <li>The live OpenAPI document, with a console to try calls, is at <a href="/schema">/schema</a>.</li>
        </ul>
      </section>
      <PublicApiGuide />
      {API_GROUPS.map((group) => (
        <section key={group.title} className="card" aria-label={group.title}>
          <h2 className="card-title">{group.title}</h2>
          <div className="table-scroll">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Access</th>
                  <th scope="col">What it does</th>
                  {reference && <th scope="col">Answer</th>}
                </tr>
              </thead>
              <tbody>
                {group.endpoints.map((endpoint) => (
                  <tr key={`${endpoint.method} ${endpoint.path}`}>
                    <td className="endpoint">{endpoint.method} {endpoint.path}</td>
                    <td>{endpoint.access}</td>
                    <td>{endpoint.summary}</td>
                    {reference && <td className="endpoint small">{endpoint.answer}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
      <section className="card">
        <h2 className="card-title">Errors</h2>
        <dl className="kv-grid">
          {ERRORS.map(([code, meaning]) => <div key={code}><dt>{code}</dt><dd>{meaning}</dd></div>)}
        </dl>
      </section>
    </DocsFrame>
  );
}
