import { readFileSync } from 'node:fs';
import path from 'node:path';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderApp } from '../test/render';

afterEach(() => {
  document.head.querySelectorAll('style[data-test-css]').forEach((style) => style.remove());
});

describe('small web items (#26, item 10)', () => {
  it("'Get started free' leads to the sign-up page, a page that exists (SPEC shows no pricing page)", async () => {
    const { user } = renderApp({ route: '/' });
    const start = await screen.findByRole('link', { name: 'Get started free' });
    expect(start).toHaveAttribute('href', '/signup');
    expect(document.querySelector('a[href="/pricing"]')).toBeNull();
    await user.click(start);
    expect(await screen.findByLabelText('Confirm password')).toBeInTheDocument();
    expect(screen.queryByText('Page Not Found')).not.toBeInTheDocument();
  });

  it("the 'Location Analysis' badge fits its text in the sub-product card (never the card's width)", async () => {
    // Vitest does not load CSS: the site's stylesheet is put in the page to read the badge's computed style.
    const style = document.createElement('style');
    style.dataset.testCss = '';
    style.textContent = readFileSync(path.resolve(__dirname, '../features/site/site.css'), 'utf8');
    document.head.append(style);
    renderApp({ route: '/products/commercial' });
    const featured = await screen.findByRole('region', { name: 'Featured Solutions' }, { timeout: 5000 });
    const badge = within(featured).getByText('Location Analysis');
    const card = badge.closest('.site-card')!;
    expect(getComputedStyle(card).display).toBe('flex');
    expect(getComputedStyle(card).flexDirection).toBe('column');
    // In a column flex card an item stretches unless it says otherwise.
    expect(getComputedStyle(badge).alignSelf).toBe('flex-start');
    expect(getComputedStyle(badge).width).toBe('fit-content');
  });
});
