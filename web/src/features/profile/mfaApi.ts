import { api } from '../../api/api';
import type { SessionResponse } from '../../api/types';
import { sessionReceived } from '../../lib/auth/authSlice';

export interface MfaStatus {
  status: 'success';
  enabled: boolean;
  recovery_codes_left: number;
  /** An administrator on a site that requires two-factor sign-in for administrators. */
  required: boolean;
  /** Changes are confirmed with the password; accounts made by third-party sign-in have none. */
  password_required: boolean;
}

export interface MfaEnrolment {
  status: 'success';
  /** Base 32, for typing into an authenticator app by hand; the server returns it only now. */
  secret: string;
  otpauth_uri: string;
  /** A standalone SVG document drawn by the server. */
  qr_svg: string;
}

/** Turning it on ends every other session; this browser gets a new one with the recovery codes. */
export interface MfaRecoveryCodes extends SessionResponse {
  recovery_codes: string[];
}

/** Two-factor sign-in on /settings: status, set-up with a QR code, confirmation, turning it off. */
export const mfaApi = api.enhanceEndpoints({ addTagTypes: ['Mfa'] }).injectEndpoints({
  endpoints: (build) => ({
    mfaStatus: build.query<MfaStatus, void>({
      query: () => '/api/auth/mfa',
      providesTags: ['Mfa'],
    }),
    startMfaEnrolment: build.mutation<MfaEnrolment, void>({
      query: () => ({ url: '/api/auth/mfa/enrol', method: 'POST' }),
    }),
    confirmMfaEnrolment: build.mutation<MfaRecoveryCodes, { code: string; password: string }>({
      query: (body) => ({ url: '/api/auth/mfa/confirm', method: 'POST', body }),
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          // A full session now, also for an administrator whose session was limited to this set-up.
          dispatch(sessionReceived({ session: data, receivedAt: Date.now() }));
        } catch {
          /* the section shows the error */
        }
      },
      invalidatesTags: ['Mfa'],
    }),
    disableMfa: build.mutation<{ status: 'success' }, { password: string; code: string }>({
      query: (body) => ({ url: '/api/auth/mfa/disable', method: 'POST', body }),
      invalidatesTags: ['Mfa'],
    }),
  }),
});

export const { useMfaStatusQuery, useStartMfaEnrolmentMutation, useConfirmMfaEnrolmentMutation, useDisableMfaMutation } =
  mfaApi;
