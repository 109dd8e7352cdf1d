import type { ReactNode } from 'react';
import { Link, useParams, type Params } from 'react-router-dom';
import { usePageTitle } from '../components/usePageTitle';

interface PlaceholderPageProps {
  title: string | ((params: Readonly<Params<string>>) => string);
  description?: string;
  children?: ReactNode;
  back?: { to: string; label: string };
}

/** A titled page for routes whose content arrives with later issues. */
export default function PlaceholderPage({ title, description, children, back }: PlaceholderPageProps) {
  const params = useParams();
  const heading = typeof title === 'function' ? title(params) : title;
  usePageTitle(heading);
  return (
    <div className="page">
      <header className="page-header">
        <h1>{heading}</h1>
        {description && <p className="muted lead">{description}</p>}
      </header>
      {children}
      <section className="card placeholder-card">
        <p>This page is being built. Its full content arrives in an upcoming release.</p>
        {back && (
          <Link to={back.to} className="btn btn-outline btn-sm">
            {back.label}
          </Link>
        )}
      </section>
    </div>
  );
}
