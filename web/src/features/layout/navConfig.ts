export interface NavItem {
  label: string;
  to: string;
}

export const MAIN_NAV: NavItem[] = [
  { label: 'Home', to: '/' },
  { label: 'Products', to: '/products' },
  { label: 'Dashboard', to: '/data-processing' },
  { label: 'About', to: '/about' },
];

/** SPEC §2: Docs dropdown labels (Features is labelled Geo peril Dictionary). */
export const DOCS_NAV: NavItem[] = [
  { label: 'Getting Started', to: '/docs/getting-started' },
  { label: 'UI Documentation', to: '/docs/ui-documentation' },
  { label: 'Geo peril Dictionary (Features)', to: '/docs/features' },
  { label: 'API Documentation', to: '/docs/api-documentation' },
];

/** The mobile menu also offers the API reference. */
export const DOCS_NAV_MOBILE: NavItem[] = [...DOCS_NAV, { label: 'API Reference', to: '/docs/api' }];

export const ACCOUNT_NAV: NavItem[] = [
  { label: 'Profile', to: '/profile' },
  { label: 'Settings', to: '/settings' },
];

export const ADMIN_NAV: NavItem[] = [
  { label: 'User Management', to: '/admin/users' },
  { label: 'System Statistics', to: '/admin/statistics' },
];

export const ADMIN_NAV_MOBILE: NavItem[] = [...ADMIN_NAV, { label: 'System Settings', to: '/admin/settings' }];
