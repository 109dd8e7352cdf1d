import { lazy, type ComponentType } from 'react';
import { Route, Routes, matchPath } from 'react-router-dom';
import { RequireAdmin, RequireAuth } from '../features/auth/guards';
import { Layout } from '../features/layout/Layout';

// Every page is its own chunk; the shell (layout, store, session) is the initial JS.
const HomePage = lazy(() => import('../pages/HomePage'));
const AuthScreen = lazy(() => import('../features/auth/AuthScreen'));
const ForgotPasswordPage = lazy(() => import('../features/auth/ForgotPasswordPage'));
const ResetPasswordPage = lazy(() => import('../features/auth/ResetPasswordPage'));
const ProfilePage = lazy(() => import('../features/profile/ProfilePage'));
const SettingsPage = lazy(() => import('../features/profile/SettingsPage'));
const DashboardPage = lazy(() => import('../features/search/DashboardPage'));
const NotFound = lazy(() => import('../features/layout/NotFound'));
const SearchResultPage = lazy(() => import('../features/searchResult/SearchResultPage'));
const ExportDetailPage = lazy(() => import('../features/exports/ExportDetailPage'));
const PortfolioPage = preloadable(() => import('../features/portfolio/PortfolioPage'));
const AboutPage = lazy(() => import('../features/site/AboutPage'));
const ContactPage = lazy(() => import('../features/site/ContactPage'));
const PrivacyPage = lazy(() => import('../features/site/PrivacyPage'));
const TermsPage = lazy(() => import('../features/site/TermsPage'));
const DocsHubPage = lazy(() => import('../features/site/DocsHubPage'));
const GettingStartedPage = lazy(() => import('../features/site/GettingStartedPage'));
const FeaturesPage = lazy(() => import('../features/site/FeaturesPage'));
const ApiDocsPage = lazy(() => import('../features/site/ApiDocsPage'));
const UiDocumentationPage = lazy(() => import('../features/site/UiDocumentationPage'));
const ProductsPage = lazy(() => import('../features/site/ProductsPage'));
const LroPage = lazy(() => import('../features/site/LroPage'));
const ProductDetailPage = lazy(() => import('../features/site/ProductDetailPage'));
const UsersPage = lazy(() => import('../features/admin/UsersPage'));
const StatisticsPage = lazy(() => import('../features/admin/StatisticsPage'));
const SystemSettingsPage = lazy(() => import('../features/admin/SystemSettingsPage'));

/**
 * A lazy page whose code can be fetched before it is first rendered. Once fetched it renders at
 * once: no Suspense fallback, so React's 300 ms hold on revealing content after a fallback does
 * not apply (issue #14: it was most of the portfolio page's wait after sign-in).
 */
function preloadable(load: () => Promise<{ default: ComponentType }>) {
  let loaded: ComponentType | null = null;
  let loading: Promise<{ default: ComponentType }> | null = null;
  const preload = () => {
    loading ??= load().then((module) => {
      loaded = module.default;
      return module;
    }, (error: unknown) => {
      loading = null; // a later render tries again (and its Suspense boundary shows the failure)
      throw error;
    });
    return loading;
  };
  const Lazy = lazy(preload);
  return Object.assign(function Preloadable() {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Lazy />;
  }, { preload });
}

// A private page opened by its address (a reload, a link) fetches its code while the session is
// being restored, instead of after.
if (typeof window !== 'undefined' && matchPath('/portfolio/:export', window.location.pathname)) {
  PortfolioPage.preload().catch(() => undefined);
}

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<Layout />}>
        <Route index element={<HomePage />} />
        <Route path="login" element={<AuthScreen mode="login" />} />
        <Route path="signup" element={<AuthScreen mode="signup" />} />
        <Route path="forgot-password" element={<ForgotPasswordPage />} />
        <Route path="reset-password" element={<ResetPasswordPage />} />

        <Route
          path="profile"
          element={
            <RequireAuth>
              <ProfilePage />
            </RequireAuth>
          }
        />
        <Route
          path="settings"
          element={
            <RequireAuth>
              <SettingsPage />
            </RequireAuth>
          }
        />
        <Route
          path="data-processing"
          element={
            <RequireAuth>
              <DashboardPage />
            </RequireAuth>
          }
        />
        {/* Without an id the page says 'No search result ID provided.' (SPEC §8). */}
        {['search-result', 'search-result/:id'].map((path) => (
          <Route
            key={path}
            path={path}
            element={
              <RequireAuth>
                <SearchResultPage />
              </RequireAuth>
            }
          />
        ))}
        <Route
          path="batch-export-detail/:filename"
          element={
            <RequireAuth>
              <ExportDetailPage />
            </RequireAuth>
          }
        />
        <Route
          path="portfolio/:export"
          element={
            <RequireAuth>
              <PortfolioPage />
            </RequireAuth>
          }
        />
        <Route
          path="admin/users"
          element={
            <RequireAdmin>
              <UsersPage />
            </RequireAdmin>
          }
        />
        <Route
          path="admin/statistics"
          element={
            <RequireAdmin>
              <StatisticsPage />
            </RequireAdmin>
          }
        />
        <Route
          path="admin/settings"
          element={
            <RequireAdmin>
              <SystemSettingsPage />
            </RequireAdmin>
          }
        />
        <Route
          path="admin/*"
          element={
            <RequireAdmin>
              <NotFound />
            </RequireAdmin>
          }
        />

        <Route path="about" element={<AboutPage />} />
        <Route path="contact" element={<ContactPage />} />
        <Route path="privacy" element={<PrivacyPage />} />
        <Route path="terms" element={<TermsPage />} />
        <Route path="docs" element={<DocsHubPage />} />
        <Route path="docs/getting-started" element={<GettingStartedPage />} />
        <Route path="docs/features" element={<FeaturesPage />} />
        <Route path="docs/api" element={<ApiDocsPage mode="overview" />} />
        <Route path="docs/api-documentation" element={<ApiDocsPage mode="reference" />} />
        <Route path="docs/ui-documentation" element={<UiDocumentationPage />} />
        <Route path="products" element={<ProductsPage />} />
        <Route path="products/commercial/lro" element={<LroPage />} />
        <Route path="products/:id" element={<ProductDetailPage />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
