import { api } from '../../api/api';

export type ApiScope = 'read' | 'batch';

export interface ApiKey {
  id: string;
  name: string;
  /** The key's first characters, to recognise it; the whole key is never sent again. */
  prefix: string;
  scopes: ApiScope[];
  created_at: string;
  last_used_at: string | null;
}

/** Today's public API requests (UTC day) against the plan. */
export interface ApiDailyUse {
  plan: 'standard' | 'premium' | 'enterprise';
  limit: number;
  used: number;
  remaining: number;
  resets_at: string;
}

export interface ApiKeyList {
  status: 'success';
  keys: ApiKey[];
  usage: ApiDailyUse;
}

export interface CreatedApiKey {
  status: 'success';
  /** The whole key, in this answer only. */
  key: string;
  api_key: ApiKey;
}

/** API keys of the public API on /settings: list with today's use, create, revoke. */
export const apiKeysApi = api.enhanceEndpoints({ addTagTypes: ['ApiKeys'] }).injectEndpoints({
  endpoints: (build) => ({
    apiKeys: build.query<ApiKeyList, void>({
      query: () => '/api/api-keys',
      providesTags: ['ApiKeys'],
    }),
    createApiKey: build.mutation<CreatedApiKey, { name: string; scopes: ApiScope[] }>({
      query: (body) => ({ url: '/api/api-keys', method: 'POST', body }),
      invalidatesTags: ['ApiKeys'],
    }),
    revokeApiKey: build.mutation<{ status: 'success' }, string>({
      query: (id) => ({ url: `/api/api-keys/${encodeURIComponent(id)}`, method: 'DELETE' }),
      invalidatesTags: ['ApiKeys'],
    }),
  }),
});

export const { useApiKeysQuery, useCreateApiKeyMutation, useRevokeApiKeyMutation } = apiKeysApi;
