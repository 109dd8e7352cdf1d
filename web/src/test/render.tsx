import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { Provider } from 'react-redux';
import { MemoryRouter, useLocation, type InitialEntry } from 'react-router-dom';
import type { User } from '../api/types';
import { App } from '../app/App';
import { makeStore, type AppStore, type RootState } from '../app/store';
import { initialAuthState } from '../lib/auth/authSlice';
import { tokenFor } from './handlers';

/** Shows the router's current location so tests can assert navigation. */
export function LocationProbe() {
  const location = useLocation();
  return (
    <div data-testid="location" data-state={JSON.stringify(location.state ?? null)}>
      {location.pathname}
      {location.search}
    </div>
  );
}

interface Options {
  route?: InitialEntry;
  store?: AppStore;
  preloadedState?: Partial<RootState>;
}

/** Render the whole app (session check, shell, routes) at `route`. */
export function renderApp({ route = '/', store, preloadedState }: Options = {}) {
  const theStore = store ?? makeStore(preloadedState);
  const user = userEvent.setup();
  const utils = render(
    <Provider store={theStore}>
      <MemoryRouter initialEntries={[route]}>
        <App />
        <LocationProbe />
      </MemoryRouter>
    </Provider>,
  );
  return { ...utils, store: theStore, user };
}

/** Render any element with a store and router, without the session check. */
export function renderWithProviders(ui: ReactElement, { route = '/', store, preloadedState }: Options = {}) {
  const theStore = store ?? makeStore(preloadedState);
  const user = userEvent.setup();
  const utils = render(
    <Provider store={theStore}>
      <MemoryRouter initialEntries={[route]}>
        {ui}
        <LocationProbe />
      </MemoryRouter>
    </Provider>,
  );
  return { ...utils, store: theStore, user };
}

/** Auth state of a signed-in user whose token the MSW handlers accept. */
export function signedInState(user: User, { tokenAgeMs = 0, token }: { tokenAgeMs?: number; token?: string } = {}) {
  const accessToken = token ?? tokenFor(user);
  return {
    auth: {
      ...initialAuthState,
      initialized: true,
      accessToken,
      tokenExpiresAt: Date.now() - tokenAgeMs + 15 * 60 * 1000,
      user,
      role: user.role,
    },
  } satisfies Partial<RootState>;
}

export const signedOutState = {
  auth: { ...initialAuthState, initialized: true },
} satisfies Partial<RootState>;
