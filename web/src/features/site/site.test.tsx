import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../test/render';
import { server } from '../../test/server';
import { DICTIONARY } from './FeaturesPage';
import { productInterest } from './products';

async function fillContact(user: ReturnType<typeof renderApp>['user']) {
  await user.type(screen.getByLabelText('First name'), 'Ada');
  await user.type(screen.getByLabelText('Last name'), 'Lovelace');
  await user.type(screen.getByLabelText('Email'), 'ada@example.com');
  await user.type(screen.getByLabelText('Message'), 'Hello');
}

describe('/contact', () => {
  it('requires every field and a valid email, and keeps what was typed', async () => {
    const { user } = renderApp({ route: '/contact' });
    await user.click(await screen.findByRole('button', { name: 'Send message' }));
    for (const text of ['Please enter your first name', 'Please enter your last name', 'Email is required', 'Please enter a message']) {
      expect(screen.getByText(text)).toBeInTheDocument();
    }
    await user.type(screen.getByLabelText('Email'), 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(screen.getByText('Please enter a valid email address')).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('not-an-email');
  });

  it('sends name, email and message, disables the form while sending, and clears it after', async () => {
    let body: { subject: string; body: string; reply_to: string } | null = null;
    server.use(http.post('/api/send-email', async ({ request }) => {
      body = (await request.json()) as typeof body;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return HttpResponse.json({ status: 'success', message: 'Message sent successfully!' });
    }));
    const { user } = renderApp({ route: '/contact' });
    await screen.findByLabelText('First name');
    await fillContact(user);
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(screen.getByLabelText('First name')).toBeDisabled();
    expect(await screen.findByText('Message sent successfully!')).toBeInTheDocument();
    expect(body).toMatchObject({ subject: 'Contact form: Ada Lovelace', reply_to: 'ada@example.com' });
    expect(body!.body).toBe('Name: Ada Lovelace\nEmail: ada@example.com\n\nHello');
    expect(screen.getByLabelText('First name')).toHaveValue('');
  });

  it.each([
    ['the server message', () => HttpResponse.json({ status: 'error', error: 'You have sent several messages in a short time. Please try again later.' }, { status: 429 }), 'You have sent several messages in a short time. Please try again later.'],
    ['the default failure', () => HttpResponse.json({}, { status: 500 }), 'Failed to send message. Please try again.'],
    ['the network error', () => HttpResponse.error(), 'An error occurred. Please try again later.'],
  ])('shows %s and keeps the form', async (_name, answer, text) => {
    server.use(http.post('/api/send-email', answer));
    const { user } = renderApp({ route: '/contact' });
    await screen.findByLabelText('First name');
    await fillContact(user);
    await user.click(screen.getByRole('button', { name: 'Send message' }));
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(screen.getByLabelText('Message')).toHaveValue('Hello');
  });

  it('starts the message from the product links', async () => {
    renderApp({ route: '/contact?product=commercial&subproduct=lro' });
    expect(await screen.findByLabelText('Message')).toHaveValue(
      'I would like information about Commercial Property & Casualty — Lessors Risk Only.',
    );
    expect(productInterest('nope', null)).toBeNull();
  });
});

describe('products', () => {
  it("lists three products, the commercial one with 'Sub Products'", async () => {
    renderApp({ route: '/products' });
    const commercial = await screen.findByRole('article', { name: 'Commercial Property & Casualty' });
    expect(within(commercial).getByText('Sub Products')).toBeInTheDocument();
    expect(within(screen.getByRole('article', { name: 'Life & Health' })).queryByText('Sub Products')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Learn More about Personal Property & Casualty' })).toHaveAttribute('href', '/products/personal');
  });

  it('shows a product after loading, with Featured Solutions and Request Information', async () => {
    renderApp({ route: '/products/commercial' });
    expect(await screen.findByText('Loading product...')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'Commercial Property & Casualty' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Featured Solutions' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Learn More about Lessors Risk Only' })).toHaveAttribute('href', '/products/commercial/lro');
    expect(screen.getByRole('link', { name: 'Request Information' })).toHaveAttribute('href', '/contact?product=commercial');
  });

  it("says 'Product Not Found' for an unknown id", async () => {
    renderApp({ route: '/products/boats' });
    expect(await screen.findByRole('heading', { name: 'Product Not Found' })).toBeInTheDocument();
    expect(screen.getByText("The product you're looking for doesn't exist or has been removed.")).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Products' })).toHaveAttribute('href', '/products');
  });

  it('sends both LRO buttons to /contact with the product', async () => {
    renderApp({ route: '/products/commercial/lro' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Lessors Risk Only' })).toBeInTheDocument();
    expect(screen.getByText('Location Analysis')).toBeInTheDocument();
    for (const name of ['Contact Us', 'Back to Products']) {
      expect(screen.getAllByRole('link', { name }).at(-1)).toHaveAttribute('href', '/contact?product=commercial&subproduct=lro');
    }
  });
});

describe('docs and legal pages', () => {
  it('has the 20-row geo peril dictionary in SPEC order', async () => {
    renderApp({ route: '/docs/features' });
    await screen.findByRole('heading', { level: 1, name: 'Geo peril Dictionary' });
    const rows = screen.getAllByRole('row').slice(1);
    expect(rows).toHaveLength(20);
    expect(DICTIONARY.map((row) => row.field)).toEqual([
      'ZIP', 'AVLN_Score', 'CFLD_Score', 'CWAV_Score', 'DRGT_Score', 'ERQK_Score', 'HAIL_Score', 'HWAV_Score', 'HRCN_Score', 'ISTM_Score',
      'LNDS_Score', 'LTNG_Score', 'RFLD_Score', 'SWND_Score', 'TRND_Score', 'TSUN_Score', 'VLCN_Score', 'WFIR_Score', 'WNTW_Score', 'Total_Score',
    ]);
    expect(screen.getByText(/read from NRI v1.20's IFLD/)).toBeInTheDocument();
  });

  it('has 11 privacy sections with the California table, and 26 terms', async () => {
    renderApp({ route: '/privacy' });
    await screen.findByText('Last updated 04/04/2025');
    expect(screen.getAllByRole('heading', { level: 2 }).filter((h) => /^\d+\. /.test(h.textContent ?? ''))).toHaveLength(11);
    expect(screen.getByRole('table', { name: /Categories of personal information sold or shared/ })).toBeInTheDocument();
    expect(screen.getByText(/within 10 days and answer within 45 days/)).toBeInTheDocument();
  });

  it('numbers the 26 terms and covers the arbitration figures', async () => {
    renderApp({ route: '/terms' });
    await screen.findByRole('heading', { level: 1, name: 'Terms and Conditions' });
    const numbered = screen.getAllByRole('heading', { level: 2 }).filter((h) => /^\d+\. /.test(h.textContent ?? ''));
    expect(numbered).toHaveLength(26);
    expect(numbered.at(-1)).toHaveTextContent(/^26\. /);
    for (const figure of ['$200', '$2,000', '14 days', '$10,000', '$75,000', '120 days', 'Connecticut', '18 or older']) {
      expect(screen.getAllByText(new RegExp(figure.replace(/[$.]/g, '\\$&'))).length).toBeGreaterThan(0);
    }
  });
});
