/** The web app's own calls (entrypoints/http/routes); the public API v1 is in publicApiReference.ts and
 * /schema has the full OpenAPI document. */
export interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  access: 'Public' | 'Signed in' | 'Admin' | 'API key';
  summary: string;
  answer: string;
}

export interface EndpointGroup {
  title: string;
  endpoints: Endpoint[];
}

export const API_GROUPS: EndpointGroup[] = [
  {
    title: 'Accounts',
    endpoints: [
      { method: 'POST', path: '/api/auth/signup', access: 'Public', summary: 'Create an account: {email, password, display_name?}.', answer: '201 {status, user}' },
      { method: 'POST', path: '/api/auth/login', access: 'Public', summary: 'Sign in: {email, password, remember_me}. Sets an HttpOnly refresh cookie.', answer: '{access_token, expires_in, user}' },
      { method: 'POST', path: '/api/auth/refresh', access: 'Public', summary: 'A new access token from the refresh cookie (rotated on every use).', answer: '{access_token, expires_in, user}' },
      { method: 'POST', path: '/api/auth/logout', access: 'Public', summary: 'End the session and clear the cookie.', answer: '{status}' },
      { method: 'GET', path: '/api/auth/me', access: 'Signed in', summary: 'Your account.', answer: '{status, user}' },
      { method: 'GET', path: '/api/auth/get-search-stats', access: 'Signed in', summary: 'Your searches this month against your limit.', answer: '{status, stats: {current_month_searches, search_limit, remaining_searches, total_searches, last_search_date}}' },
    ],
  },
  {
    title: 'Property lookup',
    endpoints: [
      { method: 'GET', path: '/api/nearby-search?address=', access: 'Signed in', summary: 'Look up one US address (street, city, state, ZIP). Counts one search.', answer: '{status, search_id, data: occupants[], result: {address, building, perils, Total_Score, Top3_Scores_Combined, receipt, ...}}' },
      { method: 'GET', path: '/api/recent-searches', access: 'Signed in', summary: 'Your recent searches, newest first.', answer: '{status, searches: [{search_id, address, timestamp, total_results, filtered_results, result_data}]}' },
      { method: 'GET', path: '/api/search-results/{id}', access: 'Signed in', summary: 'One of your stored searches.', answer: '{status, search, previous_id, next_id}' },
      { method: 'GET', path: '/api/search-results/{id}/export', access: 'Signed in', summary: 'One stored search as CSV.', answer: 'text/csv attachment' },
    ],
  },
  {
    title: 'Batch processing and exports',
    endpoints: [
      { method: 'POST', path: '/api/upload-csv', access: 'Signed in', summary: 'Upload a CSV (multipart field file; columns Street Address, City, State, Zip, Country; at most 512 MB and 1,000,000 rows by default, streamed as it arrives). 413 past either cap or your storage cap; unused uploads are deleted after 24 hours.', answer: '{status, file_id, file_path, rows}' },
      { method: 'POST', path: '/api/batch-jobs', access: 'Signed in', summary: 'Start a job for an uploaded file: {file_id}. Counts one search and the file\'s rows against your monthly batch row allowance (429 when they do not fit); 413 storage_full when its export could never fit your storage, before anything is charged. A job whose export no longer fits when it finishes fails, saying what to delete.', answer: '202 {status, job}' },
      { method: 'GET', path: '/api/batch-jobs', access: 'Signed in', summary: 'Your queued and running jobs, oldest first.', answer: '{status, jobs: [job]}' },
      { method: 'GET', path: '/api/batch-jobs/{id}', access: 'Signed in', summary: 'Job progress, with how it runs: chunks, failed rows, speed and how many workers are on it now (null until the job is split into chunks).', answer: '{status, job: {status, stage, done, total, eta_seconds, export_filename, error, chunks_total, chunks_done, chunks_failed, failed_rows, rows_per_second, worker_count}}' },
      { method: 'POST', path: '/api/batch-jobs/{id}/rerun-failed', access: 'Signed in', summary: 'Run the rows of a job that failed every attempt again, as a new job (charged like any other; 400 no_failed_rows when there are none).', answer: '202 {status, job}' },
      { method: 'GET', path: '/api/list-exported-files', access: 'Signed in', summary: 'Your exports, newest first; source "client" marks rows sent to POST /api/export, stored unchecked.', answer: '{status, files: [{id, name, path, exported_at, source}]}' },
      { method: 'GET', path: '/api/view-export/{filename}', access: 'Signed in', summary: 'An export as CSV text.', answer: 'text/csv' },
      { method: 'GET', path: '/api/download/{filename}', access: 'Signed in', summary: 'An export as a file download.', answer: 'text/csv attachment' },
      { method: 'DELETE', path: '/api/exports/{filename}', access: 'Signed in', summary: 'Delete one of your exports (frees its storage).', answer: '{status}' },
    ],
  },
  {
    title: 'Administration',
    endpoints: [
      { method: 'GET', path: '/api/admin/list-users', access: 'Admin', summary: 'Every account, newest first.', answer: '{status, users: [{uid, name, email, role, picture, created_at}]}' },
      { method: 'GET', path: '/api/admin/user-info/{uid}', access: 'Admin', summary: 'One account with its search statistics.', answer: '{status, user: {..., search_stats}}' },
      { method: 'POST', path: '/api/admin/update-user-role', access: 'Admin', summary: 'Change a role: {uid, role: "user" | "admin"}. The only administrator cannot demote themselves.', answer: '{status, user}' },
      { method: 'POST', path: '/api/admin/update-user-plan', access: 'Admin', summary: 'Set a user\'s public API plan: {uid, plan: "standard" | "premium" | "enterprise", daily_limit (enterprise only, 1 to 10,000,000)}.', answer: '{status, uid, api_plan: {plan, daily_limit}}' },
      { method: 'GET', path: '/api/admin/search-stats', access: 'Admin', summary: 'Users and searches across the system.', answer: '{status, stats: {total_users, admin_users, regular_users, total_searches, month_searches, day_searches, near_limit_users, api_requests_today, api_callers_today}}' },
      { method: 'GET', path: '/api/admin/settings', access: 'Admin', summary: 'The saved system settings.', answer: '{status, settings: {monthly_search_limit, rate_limiting, search_caching, monthly_batch_row_limit}}' },
      { method: 'PUT', path: '/api/admin/settings', access: 'Admin', summary: 'Save the settings; the monthly limit must be 1 to 100, the monthly batch rows 1 to 1,000,000.', answer: '{status, settings}' },
    ],
  },
  {
    title: 'API keys',
    endpoints: [
      { method: 'GET', path: '/api/api-keys', access: 'Signed in', summary: 'Your API keys (name, prefix, scopes, created, last used) and today\'s API use against your plan.', answer: '{status, keys: [{id, name, prefix, scopes, created_at, last_used_at}], usage: {plan, limit, used, remaining, resets_at}}' },
      { method: 'POST', path: '/api/api-keys', access: 'Signed in', summary: 'Create a key: {name, scopes: ["read", "batch"]}. The whole key is in this answer only; the server keeps its hash.', answer: '201 {status, key, api_key}' },
      { method: 'DELETE', path: '/api/api-keys/{id}', access: 'Signed in', summary: 'Revoke one of your keys; it and its bearer tokens stop working at once.', answer: '{status}' },
    ],
  },
  {
    title: 'Contact',
    endpoints: [
      { method: 'POST', path: '/api/send-email', access: 'Public', summary: 'Send a message to our team: {subject, body, reply_to}. Rate limited; at most 5,000 characters.', answer: '{status, message}' },
    ],
  },
];

export const ERRORS: [string, string][] = [
  ['400', 'The request is invalid; the error says what to fix (for example a missing ZIP code).'],
  ['401', 'Not signed in, or the access token has expired: refresh it and retry once.'],
  ['403', 'Signed in, but not allowed (admin routes for regular users).'],
  ['404', 'Not found, or not yours: other users\u2019 searches and exports are never visible.'],
  ['413', 'The upload is larger than its cap (512 MB or 1,000,000 rows by default), or a file (an upload, an export, a batch\u2019s export) would pass your storage cap: code storage_full, saying what it needs and to delete old exports.'],
  ['429', 'The monthly search limit is reached (code quota_exceeded, details.limit), or too many requests in a minute (code rate_limited).'],
  ['503', 'A data provider is unavailable; try again in a few minutes.'],
];
