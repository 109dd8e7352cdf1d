import type { ReactNode } from 'react';
import { usePageTitle } from '../../components/usePageTitle';
import { BackButton } from './BackButton';
import './site.css';

export interface LegalSection {
  id: string;
  title: string;
  body: ReactNode;
}

interface Props {
  title: string;
  lastUpdated?: string;
  intro: ReactNode;
  sections: LegalSection[];
}

/** The privacy policy and the terms: numbered sections with a table of contents and Back. */
export function LegalPage({ title, lastUpdated, intro, sections }: Props) {
  usePageTitle(title);
  return (
    <div className="page legal-page">
      <header className="page-header result-header">
        <div>
          <h1>{title}</h1>
          {lastUpdated && <p className="muted">Last updated {lastUpdated}</p>}
        </div>
        <BackButton />
      </header>
      <div className="legal-intro">{intro}</div>
      <nav className="card legal-toc" aria-label="Contents">
        <h2 className="card-title">Contents</h2>
        <ol>
          {sections.map((section) => (
            <li key={section.id}><a href={`#${section.id}`}>{section.title}</a></li>
          ))}
        </ol>
      </nav>
      <ol className="legal-sections">
        {sections.map((section, index) => (
          <li key={section.id} id={section.id} className="legal-section">
            <h2>{index + 1}. {section.title}</h2>
            {section.body}
          </li>
        ))}
      </ol>
      <BackButton />
    </div>
  );
}
