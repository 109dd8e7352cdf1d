import type { ReactNode } from 'react';

export interface DocsSectionLink {
  id: string;
  title: string;
}

/** An in-page table of contents for a long documentation page. */
export function DocsContents({ sections }: { sections: DocsSectionLink[] }) {
  return (
    <nav className="card legal-toc docs-toc" aria-label="Contents">
      <h2 className="card-title">Contents</h2>
      <ol>
        {sections.map((section) => (
          <li key={section.id}><a href={`#${section.id}`}>{section.title}</a></li>
        ))}
      </ol>
    </nav>
  );
}

/** One titled section of a documentation page; the contents link to its id. */
export function DocsSection({ section, children }: { section: DocsSectionLink; children: ReactNode }) {
  return (
    <section id={section.id} className="card docs-section" aria-labelledby={`${section.id}-title`}>
      <h2 id={`${section.id}-title`} className="card-title">{section.title}</h2>
      {children}
    </section>
  );
}

/** A code example that scrolls sideways on narrow screens and can be scrolled with the keyboard. */
export function CodeBlock({ caption, code }: { caption: string; code: string }) {
  return (
    <figure className="code-figure">
      <figcaption>{caption}</figcaption>
      {/* Focusable so keyboard users can scroll it (axe: scrollable-region-focusable). */}
      <pre className="code-block" tabIndex={0}>
        <code>{code}</code>
      </pre>
    </figure>
  );
}
