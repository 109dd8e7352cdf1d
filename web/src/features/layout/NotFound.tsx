import { Link } from 'react-router-dom';
import { usePageTitle } from '../../components/usePageTitle';

/** The catch-all page (SPEC §2). */
export default function NotFound() {
  usePageTitle('Page Not Found');
  return (
    <div className="page not-found">
      <p className="not-found-code" aria-hidden="true">
        404
      </p>
      <h1>Page Not Found</h1>
      <p className="muted">The page you are looking for does not exist or has been moved.</p>
      <div className="button-row center">
        <Link to="/" className="btn btn-primary">
          Back to Home
        </Link>
        <Link to="/login" className="btn btn-outline">
          Sign In
        </Link>
      </div>
    </div>
  );
}
