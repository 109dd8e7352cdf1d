/** The public API v1 (SPEC §7, issue 12) for integrators: every operation with its parameters and an
 * example answer. /schema holds the OpenAPI document these pages summarise. */
import ANSWERS from './publicApiAnswers.json';

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

type Operation = keyof typeof ANSWERS.endpoints;

/** The example answer of an operation, from publicApiAnswers.json (which a Python test checks
 * against the server's OpenAPI), with the status it comes with. */
function answerOf(operation: Operation): Pick<PublicEndpoint, 'status' | 'example'> {
  const { status, answer } = ANSWERS.endpoints[operation];
  return { status: String(status), example: json(answer) };
}

const IDEMPOTENCY_KEY: Parameter = {
  name: 'Idempotency-Key', where: 'header', meaning: 'Optional, 1 to 255 visible ASCII characters (e.g. a UUID); see Idempotency.',
};

const EXPORT_ID: Parameter = {
  name: 'export_id', where: 'path',
  meaning: 'The export_id of the batch\u2019s 202 answer (its job id: the CSV), or the export_id POST /api/v1/export/create answered (<job id>.xlsx or <job id>.jsonl). The format is in the id: there is no format parameter.',
};

/** Paging of the listings (history, exports, webhook deliveries): newest first, by offset. */
const OFFSET: Parameter = {
  name: 'offset', where: 'query',
  meaning: 'How many of the newest to skip (default 0). Each answer has next_offset: send it as offset for the next page; it is null on the last page. Not a whole number from 0 to 1,000,000: 400 validation_error. A query parameter the operation does not read (cursor, page...): 400 unknown_query_parameter, never ignored.',
};

const BATCH_PARAMETERS: Parameter[] = [
  { name: 'addresses: [{address, city, state, zip, fields?}]', where: 'body', meaning: 'At least one; at most the server\u2019s batch size (10,000 by default), or 413 with code too_many_addresses and details {limit, sent}. Each address looked up is one request of your daily limit, and each address one row of your monthly batch row allowance (the one uploads spend), all charged at once or none (429). address: 1 to 200 characters; city: at most 100; state: the two-letter code (WA) or the name (Washington); zip: the 5-digit ZIP. As in an uploaded file, a 4-digit ZIP is read with its leading 0 put back where the state\u2019s ZIP codes begin with 0 (2108 in MA is 02108); elsewhere a digit is missing (9810 in WA): that address is listed in the answer\u2019s refused [{address_index, row, message}], costs no request, and is not located in the export, with the same message. The export has one row per address, in this order: address_index is its position here from 0, and row is address_index + 2 (its line in the batch read as a CSV file with a header line, as an uploaded file\u2019s rows are numbered). Any other field beside these: 400.' },
  { name: 'addresses: [{..., fields: {name: text}}]', where: 'body', meaning: 'Optional: your own fields, e.g. {"policy_no": "P-1001"}, at most 20, text values of at most 1,000 characters (send numbers as text to keep leading zeros). The export gives them back unchanged as columns after address_index, as an uploaded file\u2019s own columns (empty where an address has none). A name of the batch\u2019s own columns (Street Address, City, State, Zip, Country, address_index), empty or with spaces around it: 400 invalid_own_field.' },
  { name: 'include_details', where: 'body', meaning: 'Optional, true or false (anything else: 400 with code validation_error). Accepted and ignored, so clients of the original API keep working: true, false or left out give the same export, which always has the full detail (scores, ratings, location, provenance).' },
  { name: 'callback_url', where: 'body', meaning: 'Optional: a public http(s) URL of at most 2,048 characters that gets the signed webhook when the batch ends (see Webhooks); otherwise 400 with code callback_url_refused.' },
  IDEMPOTENCY_KEY,
];

export const PUBLIC_ENDPOINTS: PublicEndpoint[] = [
  {
    method: 'POST', path: '/api/v1/auth/token', access: 'No scope: the key is in the body, not a header; costs nothing',
    summary: 'Exchange an API key for a bearer token that lasts 15 minutes, for some or all of the key\u2019s scopes.',
    parameters: [
      { name: 'api_key', where: 'body', meaning: 'The whole key, ps_live_...' },
      { name: 'scope', where: 'body', meaning: '"read", "batch" or "read batch"; empty (the default) for all of the key\u2019s scopes.' },
      IDEMPOTENCY_KEY,
    ],
    ...answerOf('POST /api/v1/auth/token'),
  },
  {
    method: 'GET', path: '/api/v1/auth/verify', access: 'Any scope; costs nothing',
    summary: 'What the key or token grants, and where you stand today.',
    parameters: [],
    ...answerOf('GET /api/v1/auth/verify'),
  },
  {
    method: 'GET', path: '/api/v1/search/address', access: 'read; one request',
    summary: 'Find a US address: the address as read, where it lies, how sure that is, and its address_id. 404 (code address_not_found) when nothing matches.',
    parameters: [
      { name: 'query', where: 'query', meaning: 'Street, city, state and ZIP, e.g. 701 5th Ave, Seattle, WA 98104 (at most 1,000 characters).' },
      { name: 'limit', where: 'query', meaning: 'How many candidates, 1 to 10 (default 5).' },
      { name: 'country', where: 'query', meaning: 'US (the default and, today, the only one; others: 400 unsupported_country).' },
    ],
    ...answerOf('GET /api/v1/search/address'),
  },
  {
    method: 'GET', path: '/api/v1/data/risk/{address_id}', access: 'read; one request',
    summary: 'The risk answer for an address_id from the address search: the total score, risk level, top risks, all 18 scores and ratings, the location with its confidence, provenance, and the census tract\u2019s scores (tract, null when there are none). Unknown values are null, never 0.',
    parameters: [
      { name: 'address_id', where: 'path', meaning: 'From GET /api/v1/search/address.' },
      { name: 'include_occupants', where: 'query', meaning: 'true to add the building\u2019s occupants [{name, vicinity, types, business_status, naics_code, naics_title, lat, lng}] (default false: no occupants field).' },
    ],
    ...answerOf('GET /api/v1/data/risk/{address_id}'),
  },
  {
    method: 'GET', path: '/api/v1/data/history/{address_id}', access: 'read; costs nothing',
    summary: 'Your own earlier answers for that address, newest first, a page at a time (next_offset: where the next page starts, null on the last).',
    parameters: [
      { name: 'address_id', where: 'path', meaning: 'From GET /api/v1/search/address.' },
      { name: 'from_date', where: 'query', meaning: 'YYYY-MM-DD, inclusive, UTC (optional).' },
      { name: 'to_date', where: 'query', meaning: 'YYYY-MM-DD, inclusive, UTC (optional).' },
      { name: 'limit', where: 'query', meaning: 'Answers on the page, 1 to 100 (default 100).' },
      OFFSET,
    ],
    ...answerOf('GET /api/v1/data/history/{address_id}'),
  },
  {
    method: 'GET', path: '/api/v1/risk-assessment', access: 'read; one request',
    summary: 'The same answer as /data/risk/{address_id}, in one call, from the address itself.',
    parameters: [{ name: 'address', where: 'query', meaning: 'Street, city, state and ZIP (at most 1,000 characters).' }],
    ...answerOf('GET /api/v1/risk-assessment'),
  },
  {
    method: 'POST', path: '/api/v1/search/batch', access: 'batch; one request per address',
    summary: 'Queue many addresses on the same job machinery as the web upload; the result appears in your export history. Answers at once (202, with a Location header) with the job and export ids and where to poll.',
    parameters: BATCH_PARAMETERS,
    ...answerOf('POST /api/v1/search/batch'),
  },
  {
    method: 'POST', path: '/api/v1/batch-assessment', access: 'batch; one request per address',
    summary: 'The same as POST /api/v1/search/batch, under the name SPEC \u00a77 gives it.',
    parameters: BATCH_PARAMETERS,
    ...answerOf('POST /api/v1/batch-assessment'),
  },
  {
    method: 'GET', path: '/api/v1/exports', access: 'batch; costs nothing',
    summary: 'Your batch exports, the API\u2019s and your web uploads\u2019 (your export history), newest first, a page at a time: each with its export_id, status_url and download_urls.',
    parameters: [
      { name: 'limit', where: 'query', meaning: 'Exports on the page, 1 to 100 (default 100).' },
      OFFSET,
    ],
    ...answerOf('GET /api/v1/exports'),
  },
  {
    method: 'GET', path: '/api/v1/export/status/{export_id}', access: 'batch; costs nothing',
    summary: 'Where a batch stands: queued, running, done or failed, with its progress and an estimate of the seconds left; once done, download_url (this export) and download_urls (every format).',
    parameters: [EXPORT_ID],
    ...answerOf('GET /api/v1/export/status/{export_id}'),
  },
  {
    method: 'POST', path: '/api/v1/export/create', access: 'batch; costs nothing',
    summary: 'The export of a finished batch in another format: answers its status, whose export_id (e.g. <job id>.xlsx) is what to download. 409 export_not_ready while the batch runs, batch_failed when it failed.',
    parameters: [
      { name: 'export_id', where: 'body', meaning: 'The export_id of the batch (or send job_id instead; the two name the same batch).' },
      { name: 'format', where: 'body', meaning: 'csv, xlsx, jsonl or parquet (json is read as jsonl); others: 400 unsupported_format.' },
      IDEMPOTENCY_KEY,
    ],
    ...answerOf('POST /api/v1/export/create'),
  },
  {
    method: 'GET', path: '/api/v1/export/download/{export_id}', access: 'batch; costs nothing',
    summary: 'The file (CSV, XLSX, JSON Lines or Parquet, by the export id, as an attachment) once the batch is done; until then 409 with code export_not_ready (below), or batch_failed.',
    parameters: [EXPORT_ID],
    ...answerOf('GET /api/v1/export/download/{export_id}'),
    status: '200: the file; or 409',
  },
  {
    method: 'GET', path: '/api/v1/webhooks/deliveries', access: 'read; costs nothing',
    summary: 'Your webhook deliveries, newest first, a page at a time, each with its attempts (newest first, at most 20) and their status codes, so you can see what reached you.',
    parameters: [
      { name: 'limit', where: 'query', meaning: 'Deliveries on the page, 1 to 50 (default 50).' },
      OFFSET,
    ],
    ...answerOf('GET /api/v1/webhooks/deliveries'),
  },
];

/** SPEC §8: the statuses of the public API, each with what to do. */
export const PUBLIC_ERRORS: [string, string][] = [
  ['400', 'The request is invalid; error says what to fix (code validation_error or invalid_input; unsupported_format, unsupported_country, invalid_idempotency_key, invalid_own_field, unknown_query_parameter, or callback_url_refused for a callback URL we may not call).'],
  ['401', 'No valid credential, and code says which: missing_credentials (neither X-API-Key nor Authorization: Bearer was sent), invalid_api_key (the key is unknown or revoked; also a token whose key was revoked since), invalid_token (the token is not ours or has expired after 15 minutes: get a new one from POST /api/v1/auth/token and retry once). No X-RateLimit-* headers: no caller is known.'],
  ['403', 'The key or token lacks the scope the call needs (code insufficient_scope).'],
  ['404', 'Not found, or not yours: another user\u2019s address_id, job or export answers 404, never 403 (code export_not_found for exports).'],
  ['409', 'export_not_ready (the batch is not done yet), batch_failed (it has no export), idempotency_key_reused or idempotency_key_in_progress.'],
  ['413', 'The batch is too large: code too_many_addresses, e.g. \u201cThis batch has 10,001 addresses; a batch may hold at most 10,000. Split it into batches of 10,000 or fewer. Nothing was charged.\u201d with details {limit, sent}; payload_too_large for a body past 16 MB; or storage_full when the batch\u2019s export could never fit your storage (delete old exports first).'],
  ['429', 'The daily limit is reached, or a batch has more addresses than requests remain today (code daily_limit_reached, nothing charged): wait Retry-After seconds, or send a smaller batch. batch_rows_exceeded: the batch has more rows than remain of your monthly batch row allowance.'],
];

/** SPEC §9: the public API's plans and their daily request limits. */
export const API_PLANS: [string, string][] = [
  ['Standard', '100 requests a day (every new account)'],
  ['Premium', '1,000 requests a day'],
  ['Enterprise', 'A custom number of requests a day, set by an administrator'],
];

export const SIGNATURE_HEADER = 'X-PerilScope-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">';

/** The headers of a webhook event, as PerilScope sends them (application/webhooks.py). */
export const WEBHOOK_EXAMPLE = `POST https://hooks.example.com/perilscope
Content-Type: application/json
User-Agent: PerilScope-Webhooks/1
X-PerilScope-Event: ${ANSWERS.webhookEvent.type}
X-PerilScope-Delivery: ${ANSWERS.webhookEvent.id}
X-PerilScope-Signature: t=1795608002,v1=60c440acaff3ce71734ce82304534beaf99a418aa9ad4267232c0f3cbd372752

${json(ANSWERS.webhookEvent)}`;

export const ERROR_BODY_EXAMPLE = json(ANSWERS.errorBody);

/** The 401s, one per code, as the server answers them (the same examples are in /schema). */
export const UNAUTHENTICATED_EXAMPLES: [string, string][] = ANSWERS.unauthenticated.map((body) => [body.code, json(body)]);
