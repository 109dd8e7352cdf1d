import { Link } from 'react-router-dom';
import { DocsFrame } from './DocsFrame';

const PAGES: [string, string, string][] = [
  ['/', 'Home', 'What PerilScope does, with a link to sign up.'],
  ['/login', 'Sign in', 'Email and password (with Remember me and Forgot password), or a third-party account.'],
  ['/signup', 'Sign up', 'Create an account; the password checklist shows which rules are met.'],
  ['/forgot-password', 'Forgot password', 'Request a reset link by email.'],
  ['/data-processing', 'Dashboard', 'Your searches this month, single address lookup, CSV upload with live progress, recent searches and export history.'],
  ['/search-result/{id}', 'Search result', "Address overview (Last Update is the date of the data; Operation alerts count closed occupants; NAICS is the occupants' most common sector), building details, where the address was located and how sure (a doubtful county is marked 'County uncertain', with the other possible counties a click away), risk analysis with the hazard chart and score receipt, and the occupants table."],
  ['/batch-export-detail/{filename}', 'Export detail', 'A batch export grouped by address, filtered and scrolled, with Download CSV and the detailed export as CSV, XLSX, JSON Lines or Parquet.'],
  ['/portfolio/{filename}', 'Portfolio', 'A finished batch at a glance: located rows, score histograms per peril, a county map and table, the 50 riskiest locations and the occupancy mix.'],
  ['/profile', 'Profile', 'Your name and avatar; change your password.'],
  ['/settings', 'Settings', 'Account settings.'],
  ['/admin/users', 'User Management (admins)', 'Search and sort users, see their searches, change roles.'],
  ['/admin/statistics', 'System Statistics (admins)', 'Users and searches across the system, with Refresh Data.'],
  ['/admin/settings', 'System Settings (admins)', 'The monthly limit, rate limiting and search caching, saved for everyone.'],
  ['/products', 'Products', 'Commercial, personal and health products, and the Lessors Risk Only solution.'],
  ['/docs', 'Documentation', 'These guides.'],
  ['/about', 'About', 'Who we are and the data sources we credit.'],
  ['/contact', 'Contact', 'Send our team a message.'],
  ['/privacy', 'Privacy Policy', 'How we handle personal information.'],
  ['/terms', 'Terms and Conditions', 'The terms of using PerilScope.'],
];

/** /docs/ui-documentation: a guide of all pages (SPEC §2). */
export default function UiDocumentationPage() {
  return (
    <DocsFrame title="UI Documentation" lead="A guide to every page of PerilScope.">
      <section className="card">
        <dl className="ui-guide">
          {PAGES.map(([path, title, text]) => (
            <div key={path} className="ui-guide-item">
              <dt>{path.includes('{') ? title : <Link to={path}>{title}</Link>} <span className="muted endpoint small">{path}</span></dt>
              <dd>{text}</dd>
            </div>
          ))}
        </dl>
      </section>
    </DocsFrame>
  );
}
