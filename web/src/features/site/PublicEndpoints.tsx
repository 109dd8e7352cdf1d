import { CodeBlock } from './DocsSection';
import { PUBLIC_ENDPOINTS, type PublicEndpoint } from './publicApiReference';

/** Every operation of the public API: what it needs, its parameters and an example answer. */
export function PublicEndpoints() {
  return (
    <>
      <ul className="docs-endpoint-index">
        {PUBLIC_ENDPOINTS.map((endpoint) => (
          <li key={anchorOf(endpoint)}>
            <a href={`#${anchorOf(endpoint)}`} className="endpoint">{endpoint.method} {endpoint.path}</a>
          </li>
        ))}
      </ul>
      {PUBLIC_ENDPOINTS.map((endpoint) => <EndpointEntry key={anchorOf(endpoint)} endpoint={endpoint} />)}
    </>
  );
}

function EndpointEntry({ endpoint }: { endpoint: PublicEndpoint }) {
  const name = `${endpoint.method} ${endpoint.path}`;
  return (
    <article id={anchorOf(endpoint)} className="docs-endpoint" aria-label={name}>
      <h3 className="endpoint">{name}</h3>
      <p>{endpoint.summary}</p>
      <p className="muted small">Scope and cost: {endpoint.access}</p>
      {endpoint.parameters.length > 0 && (
        <div className="table-scroll">
          <table className="table">
            <caption className="visually-hidden">Parameters of {name}</caption>
            <thead>
              <tr><th scope="col">Parameter</th><th scope="col">In</th><th scope="col">Meaning</th></tr>
            </thead>
            <tbody>
              {endpoint.parameters.map((parameter) => (
                <tr key={parameter.name}>
                  <td className="endpoint">{parameter.name}</td>
                  <td>{parameter.where}</td>
                  <td>{parameter.meaning}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CodeBlock caption={`Example answer (${endpoint.status})`} code={endpoint.example} />
    </article>
  );
}

function anchorOf(endpoint: PublicEndpoint): string {
  return `${endpoint.method}-${endpoint.path}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-+$/, '');
}
