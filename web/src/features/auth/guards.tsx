import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { PageSpinner } from '../../components/Spinner';
import { selectInitialized, selectIsAdmin, selectUser } from '../../lib/auth/authSlice';

/** Signed-out visitors go to /login and come back after signing in. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const user = useAppSelector(selectUser);
  const initialized = useAppSelector(selectInitialized);
  const location = useLocation();
  if (!initialized) return <PageSpinner />;
  if (!user) {
    return (
      <Navigate
        to="/login"
        replace
        state={{ from: { pathname: location.pathname, search: location.search, hash: location.hash } }}
      />
    );
  }
  return <>{children}</>;
}

/** Admin pages: signed in (else /login) and role admin (else /). The server checks too. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  return (
    <RequireAuth>
      <AdminOnly>{children}</AdminOnly>
    </RequireAuth>
  );
}

function AdminOnly({ children }: { children: ReactNode }) {
  const isAdmin = useAppSelector(selectIsAdmin);
  return isAdmin ? <>{children}</> : <Navigate to="/" replace />;
}

export interface FromState {
  from?: { pathname?: string; search?: string; hash?: string };
  signedUp?: boolean;
}

/** Where to go after signing in: the page first asked for, else the dashboard. */
export function destinationAfterLogin(state: unknown): string {
  const from = (state as FromState | null)?.from;
  const pathname = from?.pathname;
  if (!pathname || !pathname.startsWith('/') || pathname.startsWith('//')) return '/data-processing';
  if (['/login', '/signup', '/forgot-password', '/reset-password'].includes(pathname)) return '/data-processing';
  return `${pathname}${from?.search ?? ''}${from?.hash ?? ''}`;
}
