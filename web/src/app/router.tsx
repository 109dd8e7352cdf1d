import { lazy } from 'react';
import { Route, Routes } from 'react-router-dom';
import { RequireAdmin, RequireAuth } from '../features/auth/guards';
import { Layout } from '../features/layout/Layout';

// Every page is its own chunk; the shell (layout, store, session) is the initial JS.
const HomePage = lazy(() => import('../pages/HomePage'));
const PlaceholderPage = lazy(() => import('../pages/PlaceholderPage'));
const AuthScreen = lazy(() => import('../features/auth/AuthScreen'));
const ForgotPasswordPage = lazy(() => import('../features/auth/ForgotPasswordPage'));
const ResetPasswordPage = lazy(() => import('../features/auth/ResetPasswordPage'));
const ProfilePage = lazy(() => import('../features/profile/ProfilePage'));
const SettingsPage = lazy(() => import('../features/profile/SettingsPage'));
const DashboardPage = lazy(() => import('../features/dashboard/DashboardPage'));
const NotFound = lazy(() => import('../features/layout/NotFound'));
const SearchResultPage = lazy(() => import('../features/searchResult/SearchResultPage'));
const ExportDetailPage = lazy(() => import('../features/exports/ExportDetailPage'));

const PRODUCT_TITLES: Record<string, string> = {
  commercial: 'Commercial Property & Casualty',
  personal: 'Personal Property & Casualty',
  health: 'Life & Health',
};

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
          path="admin/users"
          element={
            <RequireAdmin>
              <PlaceholderPage title="User Management" description="Search users, review usage and change roles." />
            </RequireAdmin>
          }
        />
        <Route
          path="admin/statistics"
          element={
            <RequireAdmin>
              <PlaceholderPage title="System Statistics" description="Users and searches across the system." />
            </RequireAdmin>
          }
        />
        <Route
          path="admin/settings"
          element={
            <RequireAdmin>
              <PlaceholderPage title="System Settings" description="Search limits, rate limiting and caching." />
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

        <Route path="about" element={<PlaceholderPage title="About PerilScope" />} />
        <Route path="contact" element={<PlaceholderPage title="Contact Us" description="Send us a message and we will get back to you." />} />
        <Route path="privacy" element={<PlaceholderPage title="Privacy Policy" description="Last updated 04/04/2025" />} />
        <Route path="terms" element={<PlaceholderPage title="Terms and Conditions" />} />
        <Route path="docs" element={<PlaceholderPage title="Documentation" description="Guides and references for PerilScope." />} />
        <Route path="docs/getting-started" element={<PlaceholderPage title="Getting Started" back={{ to: '/docs', label: 'All docs' }} />} />
        <Route path="docs/features" element={<PlaceholderPage title="Geo peril Dictionary" back={{ to: '/docs', label: 'All docs' }} />} />
        <Route path="docs/api" element={<PlaceholderPage title="API Reference" back={{ to: '/docs', label: 'All docs' }} />} />
        <Route path="docs/ui-documentation" element={<PlaceholderPage title="UI Documentation" back={{ to: '/docs', label: 'All docs' }} />} />
        <Route path="docs/api-documentation" element={<PlaceholderPage title="API Documentation" back={{ to: '/docs', label: 'All docs' }} />} />
        <Route path="products" element={<PlaceholderPage title="Our Products" />} />
        <Route
          path="products/commercial/lro"
          element={
            <PlaceholderPage title="Lessors Risk Only" description="Location Analysis" back={{ to: '/products', label: 'Back to Products' }} />
          }
        />
        <Route
          path="products/:id"
          element={
            <PlaceholderPage
              title={(params) => PRODUCT_TITLES[params.id ?? ''] ?? 'Product Not Found'}
              back={{ to: '/products', label: 'Back to Products' }}
            />
          }
        />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
