import { api } from '../../api/api';
import type { SessionResponse } from '../../api/types';
import { sessionReceived } from '../../lib/auth/authSlice';

export interface LoginMfaRequest {
  mfa_token: string;
  code?: string;
  recovery_code?: string;
}

/** The second sign-in step: the one-time code (or a recovery code) with the token from the password step. */
export const mfaLoginApi = api.injectEndpoints({
  endpoints: (build) => ({
    loginMfa: build.mutation<SessionResponse, LoginMfaRequest>({
      query: (body) => ({ url: '/api/auth/login/mfa', method: 'POST', body }),
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(sessionReceived({ session: data, receivedAt: Date.now() }));
        } catch {
          /* the screen shows the error */
        }
      },
    }),
  }),
});

export const { useLoginMfaMutation } = mfaLoginApi;
