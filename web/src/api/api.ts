import { createApi, type BaseQueryFn, type FetchArgs, type FetchBaseQueryError } from '@reduxjs/toolkit/query/react';
import { sessionCleared, sessionReceived, userUpdated } from '../lib/auth/authSlice';
import { rawBaseQuery, type AuthExtra } from './rawBaseQuery';
import { getAccessToken, redirectToLogin, refreshSession } from './session';
import type {
  BatchJob,
  BatchJobResponse,
  BatchJobsResponse,
  ChangePasswordRequest,
  ExportedFile,
  ExportedFilesResponse,
  UploadResponse,
  NearbySearchResponse,
  RecentSearchesResponse,
  StoredSearchResponse,
  LoginRequest,
  LoginResponse,
  ProvidersResponse,
  ResetPasswordRequest,
  SearchStats,
  SearchStatsResponse,
  SignupRequest,
  StatusResponse,
  UpdateMeRequest,
  User,
  UserInfo,
  UserInfoResponse,
  UserResponse,
  VerifyTokenResponse,
} from './types';

/** SPEC §7/§9: a single search may take up to 180000 ms. */
export const SINGLE_SEARCH_TIMEOUT_MS = 180_000;

/**
 * Calls whose 401 means "wrong credentials" or "not signed in yet", never an
 * expired token: they are not retried and never sign the user out.
 */
const NO_REAUTH_ENDPOINTS = new Set([
  'login',
  'signup',
  'logout',
  'forgotPassword',
  'resetPassword',
  'getProviders',
  'loginMfa',
]);

/**
 * fetchBaseQuery plus the session rules (SPEC §4, §7):
 * - the cached access token is refreshed before the request when it is older
 *   than min(50 minutes, expires_in);
 * - on a 401 the token is force-refreshed once (concurrent 401s share one
 *   refresh) and the request retried once;
 * - when the refresh fails the session is cleared and the browser goes to /login.
 */
export const baseQueryWithReauth: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (
  args,
  api,
  extraOptions,
) => {
  const skipReauth = NO_REAUTH_ENDPOINTS.has(api.endpoint);
  const token = skipReauth
    ? ((api.getState() as { auth: { accessToken: string | null } }).auth.accessToken ?? null)
    : await getAccessToken(api);

  let result = await rawBaseQuery(args, { ...api, extra: { token } satisfies AuthExtra }, extraOptions);

  if (skipReauth || !result.error || result.error.status !== 401) return result;

  // Another request may have refreshed the token while this one was in flight.
  const current = (api.getState() as { auth: { accessToken: string | null } }).auth.accessToken;
  const retryToken = current && current !== token ? current : await refreshSession(api);

  if (!retryToken) {
    api.dispatch(sessionCleared());
    redirectToLogin();
    return result;
  }
  result = await rawBaseQuery(args, { ...api, extra: { token: retryToken } satisfies AuthExtra }, extraOptions);
  return result;
};

export const api = createApi({
  reducerPath: 'api',
  baseQuery: baseQueryWithReauth,
  tagTypes: ['Me', 'SearchStats', 'Providers', 'Searches', 'Exports', 'BatchJobs'],
  endpoints: (build) => ({
    /** The first check on app start: the refresh cookie gives a session, or the visitor is signed out. */
    restoreSession: build.mutation<string | null, void>({
      queryFn: async (_arg, baseApi) => ({ data: await refreshSession(baseApi) }),
    }),
    login: build.mutation<LoginResponse, LoginRequest>({
      query: (body) => ({ url: '/api/auth/login', method: 'POST', body }),
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          // With two-factor sign-in on there is no session yet: the screen asks for the code.
          if (data.status === 'success') dispatch(sessionReceived({ session: data, receivedAt: Date.now() }));
        } catch {
          /* the screen shows the error */
        }
      },
    }),
    signup: build.mutation<StatusResponse, SignupRequest>({
      query: (body) => ({ url: '/api/auth/signup', method: 'POST', body }),
    }),
    logout: build.mutation<StatusResponse, void>({
      query: () => ({ url: '/api/auth/logout', method: 'POST' }),
    }),
    forgotPassword: build.mutation<StatusResponse, { email: string }>({
      query: (body) => ({ url: '/forgot-password', method: 'POST', body }),
    }),
    resetPassword: build.mutation<StatusResponse, ResetPasswordRequest>({
      query: (body) => ({ url: '/api/auth/reset-password', method: 'POST', body }),
    }),
    changePassword: build.mutation<StatusResponse, ChangePasswordRequest>({
      query: (body) => ({ url: '/api/auth/change-password', method: 'POST', body }),
    }),
    getMe: build.query<User, void>({
      query: () => '/api/auth/me',
      transformResponse: (response: UserResponse) => response.user,
      providesTags: ['Me'],
    }),
    updateMe: build.mutation<User, UpdateMeRequest>({
      query: (body) => ({ url: '/api/auth/me', method: 'PATCH', body }),
      transformResponse: (response: UserResponse) => response.user,
      async onQueryStarted(_arg, { dispatch, queryFulfilled }) {
        try {
          const { data } = await queryFulfilled;
          dispatch(userUpdated(data));
        } catch {
          /* the screen shows the error */
        }
      },
      invalidatesTags: ['Me'],
    }),
    getUserInfo: build.query<UserInfo, string>({
      query: (uid) => `/api/auth/get-user-info/${encodeURIComponent(uid)}`,
      transformResponse: (response: UserInfoResponse) => response.user,
    }),
    getSearchStats: build.query<SearchStats, void>({
      query: () => '/api/auth/get-search-stats',
      transformResponse: (response: SearchStatsResponse) => response.stats,
      providesTags: ['SearchStats'],
    }),
    verifyToken: build.mutation<VerifyTokenResponse, { token: string }>({
      query: (body) => ({ url: '/api/auth/verify-token', method: 'POST', body }),
    }),
    getProviders: build.query<ProvidersResponse, void>({
      query: () => '/api/auth/providers',
      providesTags: ['Providers'],
    }),
    // A mutation, though it is a GET: each call is a new, charged search (never served from cache).
    nearbySearch: build.mutation<NearbySearchResponse, string>({
      query: (address) => ({
        url: `/api/nearby-search?address=${encodeURIComponent(address)}`,
        timeout: SINGLE_SEARCH_TIMEOUT_MS,
      }),
      invalidatesTags: ['Searches', 'SearchStats'],
    }),
    getRecentSearches: build.query<RecentSearchesResponse['searches'], void>({
      query: () => '/api/recent-searches',
      transformResponse: (response: RecentSearchesResponse) => response.searches,
      providesTags: ['Searches'],
    }),
    uploadCsv: build.mutation<UploadResponse, File>({
      query: (file) => {
        const form = new FormData();
        form.append('file', file);
        return { url: '/api/upload-csv', method: 'POST', body: form };
      },
    }),
    startBatchJob: build.mutation<BatchJob, string>({
      query: (fileId) => ({ url: '/api/batch-jobs', method: 'POST', body: { file_id: fileId } }),
      transformResponse: (response: BatchJobResponse) => response.job,
      invalidatesTags: ['SearchStats', 'BatchJobs'],
    }),
    /** A finished job's failed rows, run again as a new job (400 no_failed_rows when it has none). */
    rerunFailedRows: build.mutation<BatchJob, string>({
      query: (jobId) => ({ url: `/api/batch-jobs/${encodeURIComponent(jobId)}/rerun-failed`, method: 'POST' }),
      transformResponse: (response: BatchJobResponse) => response.job,
      invalidatesTags: ['SearchStats', 'BatchJobs'],
    }),
    listBatchJobs: build.query<BatchJob[], void>({
      query: () => '/api/batch-jobs',
      transformResponse: (response: BatchJobsResponse) => response.jobs,
      providesTags: ['BatchJobs'],
    }),
    getBatchJob: build.query<BatchJob, string>({
      query: (id) => `/api/batch-jobs/${encodeURIComponent(id)}`,
      transformResponse: (response: BatchJobResponse) => response.job,
    }),
    listExportedFiles: build.query<ExportedFile[], void>({
      query: () => '/api/list-exported-files',
      transformResponse: (response: ExportedFilesResponse) => response.files,
      providesTags: ['Exports'],
    }),
    deleteExport: build.mutation<StatusResponse, string>({
      query: (filename) => ({ url: `/api/exports/${encodeURIComponent(filename)}`, method: 'DELETE' }),
      invalidatesTags: ['Exports', 'SearchStats'],
    }),
    getSearchResult: build.query<StoredSearchResponse, string>({
      query: (id) => `/api/search-results/${encodeURIComponent(id)}`,
      providesTags: (_result, _error, id) => [{ type: 'Searches', id }],
    }),
  }),
});

export const {
  useLoginMutation,
  useSignupMutation,
  useLogoutMutation,
  useForgotPasswordMutation,
  useResetPasswordMutation,
  useChangePasswordMutation,
  useGetMeQuery,
  useUpdateMeMutation,
  useGetUserInfoQuery,
  useGetSearchStatsQuery,
  useVerifyTokenMutation,
  useGetProvidersQuery,
  useNearbySearchMutation,
  useGetRecentSearchesQuery,
  useGetSearchResultQuery,
  useUploadCsvMutation,
  useStartBatchJobMutation,
  useRerunFailedRowsMutation,
  useGetBatchJobQuery,
  useListBatchJobsQuery,
  useListExportedFilesQuery,
  useDeleteExportMutation,
} = api;
