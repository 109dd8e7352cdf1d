import { api } from '../../api/api';

export interface ContactMessage {
  subject: string;
  body: string;
  reply_to: string;
}

const contactApi = api.injectEndpoints({
  endpoints: (build) => ({
    /** POST /api/send-email: a visitor's message to the company's own recipients (no session needed). */
    sendContactMessage: build.mutation<{ status: string; message?: string; error?: string }, ContactMessage>({
      query: (body) => ({ url: '/api/send-email', method: 'POST', body }),
    }),
  }),
});

export const { useSendContactMessageMutation } = contactApi;
