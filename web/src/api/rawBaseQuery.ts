import { fetchBaseQuery } from '@reduxjs/toolkit/query/react';
import { apiUrl } from './url';

/** Extra per-request option: the bearer token to send (set by baseQueryWithReauth). */
export interface AuthExtra {
  token: string | null;
}

/** The one place the app calls `fetch`: every request, downloads and the session refresh included. */
export const rawBaseQuery = fetchBaseQuery({
  baseUrl: apiUrl(''),
  credentials: 'include',
  prepareHeaders: (headers, { extra }) => {
    const token = (extra as AuthExtra | undefined)?.token;
    if (token) headers.set('Authorization', `Bearer ${token}`);
    if (!headers.has('Accept')) headers.set('Accept', 'application/json');
    return headers;
  },
});
