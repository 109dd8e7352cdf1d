import { api } from '../../api/api';

/** The key of X-PerilScope-Signature: `whsec_` and 32 url-safe characters. */
export interface WebhookSigningSecret {
  status: 'success';
  secret: string;
}

export interface WebhookAttempt {
  attempted_at: string;
  duration_ms: number;
  /** null: no HTTP answer (timeout, connection error, refused address). */
  status_code: number | null;
  succeeded: boolean;
  /** Why the attempt failed; null on success. */
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  job_id: string;
  event: 'batch.completed' | 'batch.failed';
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  created_at: string;
  /** null once succeeded or failed. */
  next_attempt_at: string | null;
  attempt_count: number;
  /** Newest first. */
  attempts: WebhookAttempt[];
}

export interface WebhookDeliveries {
  status: 'success';
  /** Newest first. */
  deliveries: WebhookDelivery[];
}

/** Webhooks on /settings: the signing secret (revealed on request, rotated) and recent deliveries. */
export const webhooksApi = api.enhanceEndpoints({ addTagTypes: ['WebhookSecret', 'WebhookDeliveries'] }).injectEndpoints({
  endpoints: (build) => ({
    webhookSecret: build.query<WebhookSigningSecret, void>({
      query: () => '/api/webhooks/secret',
      providesTags: ['WebhookSecret'],
      keepUnusedDataFor: 0, // a secret is not kept in memory once nothing shows it
    }),
    rotateWebhookSecret: build.mutation<WebhookSigningSecret, void>({
      query: () => ({ url: '/api/webhooks/secret/rotate', method: 'POST' }),
      invalidatesTags: ['WebhookSecret'],
    }),
    webhookDeliveries: build.query<WebhookDeliveries, void>({
      query: () => '/api/webhooks/deliveries',
      providesTags: ['WebhookDeliveries'],
    }),
  }),
});

export const { useWebhookSecretQuery, useRotateWebhookSecretMutation, useWebhookDeliveriesQuery } = webhooksApi;
