import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';
import { PageSpinner } from '../../components/Spinner';
import { useScrollRestoration } from '../../lib/useScrollRestoration';
import { Footer } from './Footer';
import { TopBar } from './TopBar';

export function Layout() {
  useScrollRestoration();
  return (
    <div className="app-shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <TopBar />
      <main id="main" className="main" tabIndex={-1}>
        <Suspense fallback={<PageSpinner />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
    </div>
  );
}
