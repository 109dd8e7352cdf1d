import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Role, SessionResponse, User } from '../../api/types';

/** SPEC §7: a cached access token is used for at most 50 minutes. */
export const TOKEN_CACHE_MAX_MS = 50 * 60 * 1000;

export interface AuthState {
  /** True once the first session check (refresh call at start-up) has finished. */
  initialized: boolean;
  /** The access token lives in memory only: never in localStorage or a cookie. */
  accessToken: string | null;
  /** Epoch ms after which the cached token must not be used any more. */
  tokenExpiresAt: number | null;
  user: User | null;
  role: Role;
}

export const initialAuthState: AuthState = {
  initialized: false,
  accessToken: null,
  tokenExpiresAt: null,
  user: null,
  role: 'user',
};

export interface SessionReceivedPayload {
  session: Pick<SessionResponse, 'access_token' | 'expires_in' | 'user'>;
  /** Epoch ms when the token was obtained. */
  receivedAt: number;
}

/** How long a token received now may be used: min(50 minutes, expires_in). */
export function tokenLifetimeMs(expiresInSeconds: number | undefined | null): number {
  const fromServer =
    typeof expiresInSeconds === 'number' && Number.isFinite(expiresInSeconds) && expiresInSeconds > 0
      ? expiresInSeconds * 1000
      : TOKEN_CACHE_MAX_MS;
  return Math.min(TOKEN_CACHE_MAX_MS, fromServer);
}

const authSlice = createSlice({
  name: 'auth',
  initialState: initialAuthState,
  reducers: {
    sessionReceived(state, action: PayloadAction<SessionReceivedPayload>) {
      const { session, receivedAt } = action.payload;
      state.initialized = true;
      state.accessToken = session.access_token;
      state.tokenExpiresAt = receivedAt + tokenLifetimeMs(session.expires_in);
      state.user = session.user;
      state.role = session.user.role === 'admin' ? 'admin' : 'user';
    },
    sessionCleared(state) {
      state.initialized = true;
      state.accessToken = null;
      state.tokenExpiresAt = null;
      state.user = null;
      state.role = 'user';
    },
    userUpdated(state, action: PayloadAction<User>) {
      state.user = action.payload;
      state.role = action.payload.role === 'admin' ? 'admin' : 'user';
    },
  },
});

export const { sessionReceived, sessionCleared, userUpdated } = authSlice.actions;
export const authReducer = authSlice.reducer;

interface WithAuth {
  auth: AuthState;
}
export const selectAuth = (state: WithAuth) => state.auth;
export const selectUser = (state: WithAuth) => state.auth.user;
export const selectRole = (state: WithAuth) => state.auth.role;
export const selectIsAdmin = (state: WithAuth) => state.auth.user !== null && state.auth.role === 'admin';
export const selectAccessToken = (state: WithAuth) => state.auth.accessToken;
export const selectInitialized = (state: WithAuth) => state.auth.initialized;
