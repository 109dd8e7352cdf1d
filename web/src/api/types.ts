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
  /** An administrator who must set up two-factor sign-in before anything else. */
  mfa_enrolment_required?: boolean;
}

/** The password was right; a one-time code must follow (POST /api/auth/login/mfa). */
export interface MfaRequiredResponse {
  status: 'mfa_required';
  mfa_token: string;
}

export type LoginResponse = SessionResponse | MfaRequiredResponse;

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
  /** Batch CSV rows processed this month, against the monthly allowance (null limit: unlimited, admins). */
  batch_rows_used: number;
  batch_rows_limit: number | null;
  batch_rows_remaining: number | null;
  /** Bytes of the user's stored files (uploads, exports, their batch jobs' chunk files), against the per-user cap. */
  storage_bytes_used: number;
  storage_bytes_limit: number;
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

// --- property lookup (GET /api/nearby-search, /api/recent-searches, /api/search-results/{id}) ---

export interface Occupant {
  name: string;
  vicinity: string;
  types: string[] | string;
  business_status: string;
  lat: number | null;
  lng: number | null;
  naics_code: string;
  naics_title?: string | null;
  photo_reference?: string | null;
  address?: string; // export rows carry their group's address
}

/** One dataset behind an answer: `as_of` is the date of the data itself (a release, a snapshot). */
export interface DatasetVersion {
  dataset: string;
  version: string | null;
  as_of: string | null;
}

export type GeocodeMatch = 'building' | 'census_exact' | 'place' | 'zip_centroid' | 'none';

export interface ScoreReceipt {
  nri_version: string | null;
  county_fips: string | null;
  county_name: string | null;
  state: string | null;
  geography_level: string | null;
  geocode_match: GeocodeMatch | string;
  lat: number | null;
  lng: number | null;
  providers: Record<string, string | null>;
  scored_at: string;
  /** Absent on answers stored before the receipt named its datasets. */
  datasets?: DatasetVersion[];
  from_cache?: boolean;
  cache_max_age_hours?: number;
  /** Each set of scores with its geography and NRI release; absent on older answers. */
  score_geographies?: ScoreGeography[];
}

export interface ScoreGeography {
  /** county (the primary scores) or tract */
  geography_level: string;
  geoid: string | null;
  nri_version: string | null;
}

/** FEMA's scores for the address's census tract, beside the county's (which stay the primary ones). */
export interface TractScores {
  geography_level: 'tract';
  tract_geoid: string;
  county_fips: string;
  nri_version: string | null;
  /** Where the tract came from: geocoder or building record. */
  tract_from: string;
  perils: Record<string, number | null>;
  ratings: Record<string, string | null>;
  Total_Score: number | null;
  Top3_Scores_Combined: string;
  /** This answer's own: when the tract's NRI release is not the county's, that. */
  notes: string[];
  /** What tract scores are, next to county scores. */
  about: string;
}

/** How the county was chosen (domain/county_choice.py). */
export type LocationMethod = 'zip' | 'zip_and_place' | 'zip_share' | 'place' | 'geocoder' | 'none';

/** Another county the address may be in, with its own composite score. */
export interface CountyAlternative {
  county_fips: string;
  county_name: string | null;
  state: string | null;
  /** The share (0..1) of the ZIP code's addresses in that county. */
  share: number;
  Total_Score: number | null;
  risk_rating: string | null;
}

export interface ResultLocation {
  method: LocationMethod;
  county_fips: string | null;
  county_name: string | null;
  state: string | null;
  /** 0..1; null when the method gives no measure. */
  confidence: number | null;
  low_confidence: boolean;
  alternatives: CountyAlternative[];
  notes: string[];
  source: string;
  tract_geoid?: string | null;
}

/** Whether an occupant source covers the address (outside it, occupants are unknown, never 0). */
export interface OccupantCoverage {
  covered: boolean;
  /** The occupant source's name; null when none covers the address. */
  source: string | null;
  /** What the occupant data covers, a sentence said once on a page. */
  covers: string;
  /** false when the occupant source gives no photos: their count is unknown too. */
  photos: boolean;
}

export interface SearchResult {
  search_id: string;
  query: string;
  address: string;
  timestamp: string;
  occupants: Occupant[];
  /** null: no occupant source covers the address (unknown, never 0). */
  total_results: number | null;
  /** null on answers stored before coverage was recorded: their counts stand as they were. */
  occupant_coverage: OccupantCoverage | null;
  perils: Record<string, number | null>;
  ratings: Record<string, string | null>;
  Total_Score: number | null;
  Top3_Scores_Combined: string;
  naics_code: string;
  types: string[];
  business_status: string;
  extra_info: { photos: { photo_reference: string }[]; rating: number | null };
  vacancies: number | null;
  rental_rate: string | null;
  receipt: ScoreReceipt;
  /** Absent on answers stored before it was sent. */
  location?: ResultLocation;
  /** The census tract's scores; null or absent when the tract or its NRI table is unknown. */
  tract?: TractScores | null;
}

export interface RecentSearch {
  search_id: string;
  address: string;
  timestamp: string;
  /** null: no occupant source covers the address. */
  total_results: number | null;
  filtered_results: Occupant[];
  result_data: SearchResult | null;
}

export interface NearbySearchResponse {
  status: string;
  search_id: string;
  data: Occupant[];
  result: SearchResult;
}

export interface RecentSearchesResponse {
  status: string;
  searches: RecentSearch[];
}

export interface StoredSearchResponse {
  status: string;
  search: RecentSearch;
  previous_id: string | null;
  next_id: string | null;
}

// --- batch (POST /api/upload-csv, /api/batch-jobs, GET /api/list-exported-files) ---

export interface UploadResponse {
  status: string;
  file_id: string;
  file_path: string;
  rows: number;
}

export interface BatchJob {
  id: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  stage: 'search' | 'matching' | 'export';
  done: number;
  total: number;
  eta_seconds: number | null;
  export_filename: string | null;
  error: string | null;
  /**
   * How the job runs (GET /api/batch-jobs and /api/batch-jobs/{id} only: starting a job answers
   * without them). Null while the job is not split into chunks yet, or before a chunk has ended
   * (rows_per_second): unknown, never 0.
   */
  chunks_total?: number | null;
  chunks_done?: number | null;
  chunks_failed?: number | null;
  failed_rows?: number | null;
  rows_per_second?: number | null;
  /** How many workers hold its chunks now (counted, never named: hosts belong to /metrics and the logs). */
  worker_count?: number | null;
}

export interface BatchJobResponse {
  status: string;
  job: BatchJob;
}

/** GET /api/batch-jobs: the caller's queued and running jobs, oldest first. */
export interface BatchJobsResponse {
  status: string;
  jobs: BatchJob[];
}

export interface ExportedFile {
  id: string;
  name: string;
  path: string;
  exported_at: string;
  /** 'computed' by a batch job, or 'client': rows a caller sent to POST /api/export, stored unchecked. */
  source: 'computed' | 'client';
}

export interface ExportedFilesResponse {
  status: string;
  files: ExportedFile[];
}

/** GET /api/exports/{name}/portfolio (server: PortfolioBody). Unknown is null, never 0. */
export interface PortfolioHeadline {
  rows: number;
  located: number;
  located_by_match_level: Record<string, number>;
  low_confidence: number;
  not_located: number;
  with_occupants: number;
  occupants_not_covered: number; // located, but no occupant source covers them
  with_building_record: number;
  // Rows by status (answered, answered at ZIP level, not located): the count the viewer and exports give.
  by_status?: Record<string, number>;
}

export interface PerilDistribution {
  peril: string; // 'composite' or a hazard code
  name: string;
  bins: number[]; // known scores in 0-10 ... 90-100
  scored: number;
  unknown: number;
  high: number; // rated Relatively High or Very High
  ratings: Record<string, number>;
}

export interface CountyExposure {
  county_fips: string;
  county_name: string | null;
  state: string | null;
  locations: number;
  composite_score: number | null;
  composite_rating: string | null;
  top_hazards: { peril: string; name: string; score: number }[];
  value: number | null;
}

export interface PortfolioValue {
  column: string;
  total: number;
  parsed: number;
  unparsed: number;
  blank: number;
  by_rating: { peril: string; ratings: Record<string, number> }[];
}

export interface RiskyLocation {
  index: number; // the export viewer's address group
  row: number;
  address: string;
  county_fips: string | null;
  county_name: string | null;
  state: string | null;
  score: number;
  rating: string | null;
  nri_version: string | null; // release of the county's scores
  tract_score: number | null; // the census tract's score for the same peril; null where unknown
  tract_rating: string | null;
  tract_nri_version: string | null;
}

/** One peril at census-tract level, over the locations with tract scores only. */
export interface TractDistribution {
  peril: string;
  name: string;
  bins: number[];
  scored: number;
  unknown: number;
  high: number; // tract rated Relatively High or Very High
  county_high: number; // the same locations, county rated Relatively High or Very High
}

export interface TractSummary {
  locations: number;
  by_version: Record<string, number>; // tract NRI release -> locations
  county_versions: Record<string, number>; // county NRI release of the same locations
  other_release: number; // locations whose tract and county scores are from different releases
  distributions: TractDistribution[];
}

export interface SectorMix {
  sector: string; // NAICS sector, 'none' without a known occupant
  name: string | null;
  locations: number;
  ratings: Record<string, number>;
}

export interface PortfolioSummary {
  export: string;
  headline: PortfolioHeadline;
  distributions: PerilDistribution[];
  counties: CountyExposure[];
  value: PortfolioValue | null;
  ranked_by: string;
  riskiest: RiskyLocation[];
  sectors: SectorMix[];
  tracts: TractSummary | null; // null: no location has census-tract scores
  value_columns: string[];
}
