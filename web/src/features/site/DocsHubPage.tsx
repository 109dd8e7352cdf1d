import { Link } from 'react-router-dom';
import { usePageTitle } from '../../components/usePageTitle';
import './site.css';

const CARDS = [
  { to: '/docs/getting-started', title: 'Getting Started', text: 'Create an account and run your first lookup.' },
  { to: '/docs/features', title: 'Features & Tools', text: 'The geo peril data dictionary: every score field and its meaning.' },
  { to: '/docs/api-documentation', title: 'API Documentation', text: 'The public API (keys, limits, endpoints, webhooks) and the web app\'s own calls.' },
  { to: '/docs/ui-documentation', title: 'UI Documentation', text: 'A guide to every page of the app.' },
];

/** /docs: the documentation hub (SPEC §2). */
export default function DocsHubPage() {
  usePageTitle('Documentation');
  return (
    <div className="page site-page">
      <header className="page-header">
        <h1>Documentation</h1>
        <p className="muted lead">Guides and references for PerilScope.</p>
      </header>
      <div className="site-grid">
        {CARDS.map((card) => (
          <article key={card.to} className="card site-card">
            <h2 className="card-title">{card.title}</h2>
            <p className="muted">{card.text}</p>
            <Link to={card.to} className="btn btn-outline" aria-label={`Open ${card.title}`}>Open</Link>
          </article>
        ))}
      </div>
      <section className="card request-box">
        <h2 className="card-title">Need help?</h2>
        <p>Can&apos;t find what you need? Our team answers within one business day.</p>
        <Link to="/contact" className="btn btn-accent">Contact Support</Link>
      </section>
    </div>
  );
}
