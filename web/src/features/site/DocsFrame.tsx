import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { usePageTitle } from '../../components/usePageTitle';
import './site.css';

/** The frame of every documentation page below /docs. */
export function DocsFrame({ title, lead, children }: { title: string; lead: string; children: ReactNode }) {
  usePageTitle(title);
  return (
    <div className="page site-page docs-page">
      <p><Link to="/docs">← All documentation</Link></p>
      <header className="page-header">
        <h1>{title}</h1>
        <p className="muted lead">{lead}</p>
      </header>
      {children}
    </div>
  );
}
