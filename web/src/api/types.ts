export type Role = 'user' | 'admin';

export interface User {
  uid: string;
  email: string;
  displayName: string | null;
  photoURL: string | null;
  role: Role;
  created_at: string;
}

export interface SessionResponse {
  status: 'success';
  access_token: string;
  token_type: string;
  expires_in: number;
  user: User;
}

export interface UserResponse {
  status: 'success';
  user: User;
}

export interface StatusResponse {
  status: 'success' | 'error';
  message?: string;
  error?: string;
}

export interface LoginRequest {
  email: string;
  password: string;
  remember_me: boolean;
}

export interface SignupRequest {
  email: string;
  password: string;
  display_name?: string;
}

export interface ResetPasswordRequest {
  token: string;
  password: string;
}

export interface ChangePasswordRequest {
  current_password: string;
  new_password: string;
}

export interface UpdateMeRequest {
  display_name?: string | null;
  photo_url?: string | null;
}

export interface UserInfo {
  uid: string;
  email: string;
  name: string | null;
  role: Role;
  picture: string | null;
  created_at: string | null;
}

export interface UserInfoResponse {
  status: 'success';
  user: UserInfo;
}

export interface SearchStats {
  current_month_searches: number;
  search_limit: number | null;
  remaining_searches: number | null;
  total_searches: number;
  last_search_date: string | null;
}

export interface SearchStatsResponse {
  status: 'success';
  stats: SearchStats;
}

export interface VerifyTokenResponse {
  status: 'success';
  valid: boolean;
  uid?: string;
}

export interface AuthProvider {
  id: string;
  name: string;
}

export interface ProvidersResponse {
  providers: AuthProvider[];
}
