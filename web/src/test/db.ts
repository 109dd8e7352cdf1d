import type { SearchStats, User } from '../api/types';
import type { WebhookDelivery } from '../features/profile/webhooksApi';

/** In-memory state behind the MSW handlers; reset after every test. */
export interface TestDb {
  users: Map<string, { user: User; password: string }>;
  /** Whether the browser holds a valid refresh cookie. */
  refreshCookie: string | null;
  stats: SearchStats;
  /** Counts of calls per path, for assertions. */
  calls: Record<string, number>;
  lastBodies: Record<string, unknown>;
  tokenCounter: number;
  /** Two-factor sign-in per e-mail: on or not, and the recovery codes still unused. */
  mfa: Map<string, { enabled: boolean; recoveryCodes: string[] }>;
  /** The admin setting 'Require two-factor sign-in for all administrators'. */
  requireAdminMfa: boolean;
  /** API keys per e-mail (the whole key is only in the create answer), and each user's public API plan and use today. */
  apiKeys: Map<string, ApiKeyRecord[]>;
  apiPlans: Map<string, { plan: 'standard' | 'premium' | 'enterprise'; daily_limit: number }>;
  apiUsedToday: Map<string, number>;
  /** Webhook signing secrets and recent deliveries per e-mail. */
  webhookSecrets: Map<string, string>;
  webhookDeliveries: Map<string, WebhookDelivery[]>;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  scopes: ('read' | 'batch')[];
  created_at: string;
  last_used_at: string | null;
}

export const ANN: User = {
  uid: '11111111-1111-4111-8111-111111111111',
  email: 'ann@example.com',
  displayName: 'Ann Lee',
  photoURL: null,
  role: 'user',
  created_at: '2026-01-05T09:00:00Z',
};

export const ADMIN: User = {
  uid: '22222222-2222-4222-8222-222222222222',
  email: 'admin@example.com',
  displayName: 'Ada Admin',
  photoURL: null,
  role: 'admin',
  created_at: '2026-01-01T09:00:00Z',
};

export const GOOD_PASSWORD = 'Str0ng!Pass';

function fresh(): TestDb {
  return {
    users: new Map([
      [ANN.email, { user: { ...ANN }, password: GOOD_PASSWORD }],
      [ADMIN.email, { user: { ...ADMIN }, password: GOOD_PASSWORD }],
    ]),
    refreshCookie: null,
    stats: {
      current_month_searches: 3,
      search_limit: 10,
      remaining_searches: 7,
      total_searches: 12,
      last_search_date: '2026-11-20T10:00:00Z',
      batch_rows_used: 2_500,
      batch_rows_limit: 10_000,
      batch_rows_remaining: 7_500,
      storage_bytes_used: 31_457_280, // 30 MB
      storage_bytes_limit: 209_715_200, // 200 MB
    },
    calls: {},
    lastBodies: {},
    tokenCounter: 0,
    mfa: new Map(),
    requireAdminMfa: false,
    apiKeys: new Map(),
    apiPlans: new Map(),
    apiUsedToday: new Map(),
    webhookSecrets: new Map(),
    webhookDeliveries: new Map(),
  };
}

export let db: TestDb = fresh();

export function resetDb(): void {
  db = fresh();
}

export function callCount(path: string): number {
  return db.calls[path] ?? 0;
}
