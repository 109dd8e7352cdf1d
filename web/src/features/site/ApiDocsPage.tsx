import { DocsFrame } from './DocsFrame';
import { DocsContents, DocsSection } from './DocsSection';
import { API_GROUPS, ERRORS } from './apiReference';
import { PUBLIC_API_SECTIONS, PublicApiGuide } from './PublicApiGuide';

const WEB_APP = { id: 'web-app', title: 'The web app\u2019s own calls' };
const REFERENCE = { id: 'reference', title: 'Reference: the OpenAPI document' };
const SECTIONS = [...PUBLIC_API_SECTIONS, WEB_APP, REFERENCE];

/** /docs/api (overview) and /docs/api-documentation (reference): the public API for integrators, then
 * the web app's own calls; the reference adds each web call's answer. */
export default function ApiDocsPage({ mode }: { mode: 'overview' | 'reference' }) {
  const reference = mode === 'reference';
  return (
    <DocsFrame
      title={reference ? 'API Documentation' : 'API Reference'}
      lead={
        reference
          ? 'Every endpoint of the PerilScope API, with its parameters and answers.'
          : 'How the PerilScope API works: keys, limits, endpoints and webhooks.'
      }
    >
      <section className="card">
        <h2 className="card-title">Basics</h2>
        <ul>
          <li>JSON over HTTPS. Answers carry <code>status</code>; errors add an <code>error</code> message you can show and a machine <code>code</code>.</li>
          <li>Integrators call the public API under <code>/api/v1</code> with an API key: start with <a href="#authentication">Authentication</a>.</li>
          <li>The live OpenAPI document, with a console to try calls, is at <a href="/schema">/schema</a>: it is the reference for every field.</li>
        </ul>
      </section>
      <DocsContents sections={SECTIONS} />
      <PublicApiGuide />
      <DocsSection section={WEB_APP}>
        <ul>
          <li>
            The web app signs in with <code>POST /api/auth/login</code> and sends its access token as{' '}
            <code>Authorization: Bearer &lt;token&gt;</code>. Tokens last 15 minutes; <code>POST /api/auth/refresh</code> issues a new one.
          </li>
          <li>Each lookup or batch counts one search against a monthly limit (10 for regular accounts unless an administrator changes it; none for administrators).</li>
        </ul>
        {API_GROUPS.map((group) => (
          <section key={group.title} className="docs-subsection docs-web-calls" aria-label={group.title}>
            <h3>{group.title}</h3>
            <div className="table-scroll" tabIndex={0} role="region" aria-label={`${group.title}, scrollable`}>
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
        <h3>Errors of the web app</h3>
        <dl className="kv-grid">
          {ERRORS.map(([code, meaning]) => <div key={code}><dt>{code}</dt><dd>{meaning}</dd></div>)}
        </dl>
      </DocsSection>
      <DocsSection section={REFERENCE}>
        <p>
          <a href="/schema">/schema</a> is the OpenAPI document of every operation above, with request and response
          schemas and examples; generate a client from it or try calls in its console.
        </p>
      </DocsSection>
    </DocsFrame>
  );
}
