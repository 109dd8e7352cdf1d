import { api } from '../../api/api';

export type Role = 'user' | 'admin';

export interface AdminUser {
  uid: string;
  name: string | null;
  email: string;
  role: Role;
  picture: string | null;
  created_at: string | null;
}

export interface UserSearchStats {
  current_month_searches: number;
  search_limit: number | null;
  remaining_searches: number | null;
  total_searches: number;
  last_search_date: string | null;
}

export type ApiPlanName = 'standard' | 'premium' | 'enterprise';

/** The user's public API plan and its daily request limit (Enterprise: a number set per user). */
export interface ApiPlan {
  plan: ApiPlanName;
  daily_limit: number;
}

export interface SystemStats {
  total_users: number;
  admin_users: number;
  regular_users: number;
  total_searches: number;
  month_searches: number;
  day_searches: number;
  near_limit_users: number;
  /** Public API requests charged today (UTC) across every user, and how many users made them. */
  api_requests_today?: number;
  api_callers_today?: number;
}

export interface SystemSettings {
  monthly_search_limit: number;
  rate_limiting: boolean;
  search_caching: boolean;
  /** Batch CSV rows a regular user may process a month (1 to 1,000,000). */
  monthly_batch_row_limit: number;
  require_admin_mfa: boolean;
}

/** The admin calls of SPEC §7 plus the saved settings; a role change refreshes users and statistics. */
export const adminApi = api.enhanceEndpoints({ addTagTypes: ['AdminUsers', 'AdminStats', 'AdminSettings'] }).injectEndpoints({
  endpoints: (build) => ({
    listUsers: build.query<{ status: string; users: AdminUser[] }, void>({
      query: () => '/api/admin/list-users',
      providesTags: ['AdminUsers'],
    }),
    adminUserInfo: build.query<
      { status: string; user: AdminUser & { search_stats: UserSearchStats; api_plan: ApiPlan } },
      string
    >({
      query: (uid) => `/api/admin/user-info/${encodeURIComponent(uid)}`,
      providesTags: ['AdminUsers'],
    }),
    updateUserRole: build.mutation<{ status: string; user: AdminUser }, { uid: string; role: Role }>({
      query: (body) => ({ url: '/api/admin/update-user-role', method: 'POST', body }),
      invalidatesTags: ['AdminUsers', 'AdminStats'],
    }),
    updateUserPlan: build.mutation<
      { status: string; uid: string; api_plan: ApiPlan },
      { uid: string; plan: ApiPlanName; daily_limit?: number }
    >({
      query: (body) => ({ url: '/api/admin/update-user-plan', method: 'POST', body }),
      invalidatesTags: ['AdminUsers'],
    }),
    systemStats: build.query<{ status: string; stats: SystemStats }, void>({
      query: () => '/api/admin/search-stats',
      providesTags: ['AdminStats'],
    }),
    systemSettings: build.query<{ status: string; settings: SystemSettings }, void>({
      query: () => '/api/admin/settings',
      providesTags: ['AdminSettings'],
    }),
    saveSystemSettings: build.mutation<{ status: string; settings: SystemSettings }, SystemSettings>({
      query: (body) => ({ url: '/api/admin/settings', method: 'PUT', body }),
      invalidatesTags: ['AdminSettings', 'AdminStats', 'SearchStats'],
    }),
  }),
});

export const {
  useListUsersQuery,
  useAdminUserInfoQuery,
  useUpdateUserRoleMutation,
  useUpdateUserPlanMutation,
  useSystemStatsQuery,
  useSystemSettingsQuery,
  useSaveSystemSettingsMutation,
} = adminApi;
