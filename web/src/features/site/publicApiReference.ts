/** The public API v1 (SPEC §7, issue 12) for integrators: every operation with its parameters and an
 * example answer. /schema holds the OpenAPI document these pages summarise. */
export interface Parameter {
  name: string;
  where: 'path' | 'query' | 'body' | 'header';
  meaning: string;
}

export interface PublicEndpoint {
  method: 'GET' | 'POST';
  path: string;
  /** The scope a key or token needs, if any, and what it costs against the daily limit. */
  access: string;
  summary: string;
  parameters: Parameter[];
  /** The status and an example body (JSON or a description of a file). */
  status: string;
  example: string;
}

/** JSON on one line, with a space after each comma and colon as people write it. */
function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${inlineJson(item)}`).join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** JSON as an example: small objects and lists on one line, so examples stay short on a phone. */
export function exampleJson(value: unknown, indent = ''): string {
  const flat = inlineJson(value);
  if (value === null || typeof value !== 'object' || flat.length + indent.length <= 60) return flat;
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((item) => `${inner}${exampleJson(item, inner)}`)
    : Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${exampleJson(item, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${items.join(',\n')}\n${indent}${close}`;
}

const json = (value: unknown) => exampleJson(value);

const LOCATION = {
  method: 'geocoder', county_fips: '53033', county_name: 'King', state: 'WA', confidence: 0.98,
  low_confidence: false, alternatives: [], notes: [], source: 'census_geocoder', tract_geoid: '53033008100',
  lat: 47.6062, lng: -122.3321, geocode_match: 'exact',
};

const RISK_ANSWER = {
  status: 'success',
  address: '701 5th Ave, Seattle, WA 98104',
  total_score: 99.87,
  risk_level: 'Very High',
  top_risks: [
    { type: 'ERQK', name: 'Earthquake', score: 99.97 },
    { type: 'VLCN', name: 'Volcanic Activity', score: 99.4 },
    { type: 'LNDS', name: 'Landslide', score: 98.1 },
  ],
  scores: { AVLN: 80.2, CFLD: 93.5, '...': '16 more, null when unknown' },
  ratings: { Total: 'Very High', ERQK: 'Very High', '...': '...' },
  location: LOCATION,
  provenance: { nri_version: '1.20.0', datasets: [{ dataset: 'nri_counties', version: 'NRI v1.20.0 (December 2025)', as_of: '2025-12' }], scored_at: '2026-11-25T10:04:11Z' },
};

const BATCH_ACCEPTED = {
  status: 'accepted', job_id: 'job_7f3c2a', export_id: 'exp_91d0b4', eta_seconds: 42,
  status_url: '/api/v1/export/status/exp_91d0b4',
};

const BATCH_BODY = 'addresses: [{address, city, state, zip}] (at most 100,000; each one counts one request); include_details: true for every score and the location, false for the total and top risks; callback_url (optional): where to POST the webhook when the batch ends.';

export const PUBLIC_ENDPOINTS: PublicEndpoint[] = [
  {
    method: 'POST', path: '/api/v1/auth/token', access: 'No key header; costs nothing',
    summary: 'Exchange an API key for a bearer token that lasts 15 minutes, for some or all of the key\u2019s scopes.',
    parameters: [
      { name: 'api_key', where: 'body', meaning: 'The whole key, ps_live_...' },
      { name: 'scope', where: 'body', meaning: '"read", "batch" or "read batch"; empty for all of the key\u2019s scopes.' },
    ],
    status: '200', example: json({ access_token: 'eyJhbGciOi...', token_type: 'bearer', expires_in: 900, scope: 'batch read' }),
  },
  {
    method: 'GET', path: '/api/v1/auth/verify', access: 'Any scope; costs nothing',
    summary: 'What the key or token grants, and where you stand today.',
    parameters: [],
    status: '200',
    example: json({ status: 'success', valid: true, user_id: 'u_2b9e', key_id: 'k_51ac', scopes: ['batch', 'read'], plan: 'standard', daily_limit: 100, used_today: 12, remaining_today: 88, resets_at: '2026-11-26T00:00:00Z' }),
  },
  {
    method: 'GET', path: '/api/v1/search/address', access: 'read; one request',
    summary: 'Find a US address: the address as read, where it lies, how sure that is, and its address_id. 404 when nothing matches.',
    parameters: [
      { name: 'query', where: 'query', meaning: 'Street, city, state and ZIP, e.g. 701 5th Ave, Seattle, WA 98104 (at most 1,000 characters).' },
      { name: 'limit', where: 'query', meaning: 'How many candidates, 1 to 10 (default 5).' },
      { name: 'country', where: 'query', meaning: 'US (the default and, today, the only one).' },
    ],
    status: '200',
    example: json({ status: 'success', candidates: [{ address_id: 'adr_9QmF...', address: '701 5th Ave, Seattle, WA 98104', location: LOCATION }] }),
  },
  {
    method: 'GET', path: '/api/v1/data/risk/{address_id}', access: 'read; one request',
    summary: 'The risk answer for an address_id from the address search: the total score, risk level, top risks, all 18 scores and ratings, the location with its confidence, and provenance. Unknown values are null, never 0.',
    parameters: [
      { name: 'address_id', where: 'path', meaning: 'From GET /api/v1/search/address.' },
      { name: 'include_occupants', where: 'query', meaning: 'true to add the building\u2019s occupants [{name, vicinity, types, business_status, naics_code, naics_title, lat, lng}].' },
    ],
    status: '200', example: json(RISK_ANSWER),
  },
  {
    method: 'GET', path: '/api/v1/data/history/{address_id}', access: 'read; costs nothing',
    summary: 'Your own earlier answers for that address, newest first, at most 100.',
    parameters: [
      { name: 'address_id', where: 'path', meaning: 'From GET /api/v1/search/address.' },
      { name: 'from_date', where: 'query', meaning: 'YYYY-MM-DD, inclusive, UTC (optional).' },
      { name: 'to_date', where: 'query', meaning: 'YYYY-MM-DD, inclusive, UTC (optional).' },
    ],
    status: '200',
    example: json({ status: 'success', address_id: 'adr_9QmF...', address: '701 5th Ave, Seattle, WA 98104', answers: [{ answered_at: '2026-11-25T10:04:11Z', answer: { '...': 'as GET /api/v1/data/risk/{address_id}' } }] }),
  },
  {
    method: 'GET', path: '/api/v1/risk-assessment', access: 'read; one request',
    summary: 'The same answer as /data/risk/{address_id}, in one call, from the address itself.',
    parameters: [{ name: 'address', where: 'query', meaning: 'Street, city, state and ZIP (at most 1,000 characters).' }],
    status: '200', example: json({ ...RISK_ANSWER, scores: { '...': 'as above' }, ratings: { '...': 'as above' }, provenance: { '...': 'as above' } }),
  },
  {
    method: 'POST', path: '/api/v1/search/batch', access: 'batch; one request per address',
    summary: 'Queue many addresses on the same job machinery as the web upload; the result appears in your export history. Answers at once with where to poll.',
    parameters: [
      { name: 'body', where: 'body', meaning: BATCH_BODY },
      { name: 'Idempotency-Key', where: 'header', meaning: 'Optional; see Idempotency.' },
    ],
    status: '202', example: json(BATCH_ACCEPTED),
  },
  {
    method: 'POST', path: '/api/v1/batch-assessment', access: 'batch; one request per address',
    summary: 'The same as POST /api/v1/search/batch, under the name SPEC §7 gives it.',
    parameters: [
      { name: 'body', where: 'body', meaning: BATCH_BODY },
      { name: 'Idempotency-Key', where: 'header', meaning: 'Optional; see Idempotency.' },
    ],
    status: '202', example: json(BATCH_ACCEPTED),
  },
  {
    method: 'GET', path: '/api/v1/export/status/{export_id}', access: 'batch; costs nothing',
    summary: 'Where a batch stands: queued, running, completed or failed, with progress.',
    parameters: [{ name: 'export_id', where: 'path', meaning: 'From the 202 answer of a batch.' }],
    status: '200',
    example: json({ status: 'running', job_id: 'job_7f3c2a', export_id: 'exp_91d0b4', done: 120, total: 250, eta_seconds: 20, error: null, download_url: null }),
  },
  {
    method: 'POST', path: '/api/v1/export/create', access: 'batch; costs nothing',
    summary: 'Make the file of a finished batch in another format.',
    parameters: [
      { name: 'export_id', where: 'body', meaning: 'From the 202 answer of a batch.' },
      { name: 'format', where: 'body', meaning: 'csv, xlsx or jsonl.' },
      { name: 'Idempotency-Key', where: 'header', meaning: 'Optional; see Idempotency.' },
    ],
    status: '202',
    example: json({ status: 'accepted', export_id: 'exp_91d0b4', format: 'xlsx', status_url: '/api/v1/export/status/exp_91d0b4' }),
  },
  {
    method: 'GET', path: '/api/v1/export/download/{export_id}', access: 'batch; costs nothing',
    summary: 'The file, once the export is complete; until then 409 with code export_not_ready.',
    parameters: [
      { name: 'export_id', where: 'path', meaning: 'From the 202 answer of a batch.' },
      { name: 'format', where: 'query', meaning: 'csv, xlsx or jsonl (one made with POST /api/v1/export/create).' },
    ],
    status: '200 (file) or 409',
    example: json({ status: 'error', error: 'The export is not complete yet; poll its status_url and download it when it is.', request_id: '5d1e0c...', code: 'export_not_ready' }),
  },
  {
    method: 'GET', path: '/api/v1/webhooks/deliveries', access: 'batch; costs nothing',
    summary: 'Your webhook deliveries, newest first: every attempt with its status code, so you can see what reached you.',
    parameters: [],
    status: '200',
    example: json({ status: 'success', deliveries: [{ id: 'dlv_3a9c', event: 'batch.completed', url: 'https://hooks.example.com/perilscope', attempts: [{ at: '2026-11-25T10:05:02Z', status_code: 200, error: null }], delivered: true }] }),
  },
];

/** SPEC §8: the statuses of the public API, each with what to do. */
export const PUBLIC_ERRORS: [string, string][] = [
  ['400', 'The request is invalid; error says what to fix (code invalid_input, or callback_url_refused for a callback URL we may not call).'],
  ['401', 'No key or token, or a revoked key, or an expired token: get a new token and retry once.'],
  ['403', 'The key or token lacks the scope the call needs (code insufficient_scope).'],
  ['404', 'Not found, or not yours: another user\u2019s address_id, job or export answers 404, never 403.'],
  ['409', 'export_not_ready (download before the export is complete), idempotency_key_reused or idempotency_key_in_progress.'],
  ['413', 'The batch is too large (too many addresses, or a body past the size limit).'],
  ['429', 'The daily limit is reached (code daily_limit_reached): wait Retry-After seconds.'],
];

/** SPEC §9: the public API's plans and their daily request limits. */
export const API_PLANS: [string, string][] = [
  ['Standard', '100 requests a day (every new account)'],
  ['Premium', '1,000 requests a day'],
  ['Enterprise', 'A custom number of requests a day, set by an administrator'],
];

export const SIGNATURE_HEADER = 'X-PerilScope-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">';

export const WEBHOOK_EXAMPLE = `POST https://hooks.example.com/perilscope
Content-Type: application/json
X-PerilScope-Event: batch.completed
X-PerilScope-Delivery: dlv_3a9c
X-PerilScope-Signature: t=1764065102,v1=5f0c8e...

${json({
  id: 'evt_0b7d', type: 'batch.completed', created_at: '2026-11-25T10:05:02Z',
  data: {
    job_id: 'job_7f3c2a', export_id: 'exp_91d0b4', status: 'completed', rows: 250, error: null,
    status_url: '/api/v1/export/status/exp_91d0b4', download_url: '/api/v1/export/download/exp_91d0b4',
  },
})}`;

export const ERROR_BODY_EXAMPLE = json({
  status: 'error', error: 'The daily limit of 100 requests is reached; it starts again at midnight UTC.',
  request_id: '5d1e0c...', code: 'daily_limit_reached', details: { limit: 100 },
});
