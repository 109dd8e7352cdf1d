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
        <dl className="docs-parameters" aria-label={`Parameters of ${name}`}>
          {endpoint.parameters.map((parameter) => (
            <div key={parameter.name}>
              <dt><code>{parameter.name}</code> <span className="muted small">({parameter.where})</span></dt>
              <dd>{parameter.meaning}</dd>
            </div>
          ))}
        </dl>
      )}
      <CodeBlock caption={`Example answer (${endpoint.status})`} code={endpoint.example} />
    </article>
  );
}

function anchorOf(endpoint: PublicEndpoint): string {
  return `${endpoint.method}-${endpoint.path}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/-+$/, '');
}
