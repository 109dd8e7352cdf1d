import { Link } from 'react-router-dom';

const COLUMNS: { title: string; links: { label: string; to: string }[] }[] = [
  {
    title: 'Product',
    links: [
      { label: 'Our Products', to: '/products' },
      { label: 'Commercial P&C', to: '/products/commercial' },
      { label: 'Personal P&C', to: '/products/personal' },
      { label: 'Life & Health', to: '/products/health' },
      { label: 'Dashboard', to: '/data-processing' },
    ],
  },
  {
    title: 'Company',
    links: [
      { label: 'About', to: '/about' },
      { label: 'Contact', to: '/contact' },
    ],
  },
  {
    title: 'Resources',
    links: [
      { label: 'Documentation', to: '/docs' },
      { label: 'Getting Started', to: '/docs/getting-started' },
      { label: 'Geo peril Dictionary', to: '/docs/features' },
      { label: 'API Documentation', to: '/docs/api-documentation' },
    ],
  },
  {
    title: 'Legal',
    links: [
      { label: 'Privacy Policy', to: '/privacy' },
      { label: 'Terms and Conditions', to: '/terms' },
    ],
  },
];

export function copyrightLine(year: number = new Date().getFullYear()): string {
  return `© ${year} PerilScope. All rights reserved.`;
}

export function Footer() {
  return (
    <footer className="footer">
      <div className="footer-inner">
        <div className="footer-brand">
          <Link to="/" className="brand brand-light" aria-label="PerilScope home">
            <span className="brand-mark" aria-hidden="true" />
            <span className="brand-name">
              Peril<span>Scope</span>
            </span>
          </Link>
          <p>Occupancy, building and geo peril risk data for every US property address.</p>
        </div>
        {COLUMNS.map((column) => (
          <nav key={column.title} className="footer-column" aria-label={column.title}>
            <h2>{column.title}</h2>
            <ul>
              {column.links.map((link) => (
                <li key={link.to}>
                  <Link to={link.to}>{link.label}</Link>
                </li>
              ))}
            </ul>
          </nav>
        ))}
      </div>
      <div className="footer-bottom">
        <p>{copyrightLine()}</p>
      </div>
    </footer>
  );
}
