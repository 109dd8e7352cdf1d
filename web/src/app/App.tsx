import { useEffect, useRef } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { selectInitialized } from '../lib/auth/authSlice';
import { api } from '../api/api';
import { setSessionNavigator } from '../api/session';
import { useAppDispatch, useAppSelector } from './hooks';
import { AppRoutes } from './router';

/**
 * The app: on start it asks the server for a session (refresh cookie). The shell and public
 * pages render straight away, so nothing jumps when the answer arrives.
 */
export function App() {
  const dispatch = useAppDispatch();
  const initialized = useAppSelector(selectInitialized);
  const navigate = useNavigate();
  const location = useLocation();
  const locationRef = useRef(location);
  locationRef.current = location;

  useEffect(() => {
    if (!initialized) void dispatch(api.endpoints.restoreSession.initiate());
    // Only on start: later refreshes happen per request.
  }, []);

  useEffect(() => {
    setSessionNavigator((to, options) => {
      const { pathname, search, hash } = locationRef.current;
      navigate(to, {
        replace: options?.replace,
        state: options?.state ?? { from: { pathname, search, hash } },
      });
    });
    return () => setSessionNavigator(null);
  }, [navigate]);

  // Public pages render at once; private ones wait for the session check in their guard.
  return <AppRoutes />;
}
