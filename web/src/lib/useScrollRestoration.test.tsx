import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { BrowserRouter, Link, MemoryRouter, Outlet, Route, Routes, useNavigate } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useScrollRestoration } from './useScrollRestoration';

/** jsdom does not scroll: this window keeps the offset the page asked for. */
let scrollY = 0;
function scrollWindowTo(y: number) {
  scrollY = y;
  window.dispatchEvent(new Event('scroll'));
}

function Shell() {
  useScrollRestoration();
  const navigate = useNavigate();
  return (
    <>
      <Link to="/b">Open B</Link>
      <button type="button" onClick={() => navigate(-1)}>Back</button>
      <button type="button" onClick={() => navigate(1)}>Forward</button>
      <button type="button" onClick={() => navigate('/a?tidy=1', { replace: true })}>Tidy the query</button>
      <Outlet />
    </>
  );
}

const ROUTES = (
  <Routes>
    <Route element={<Shell />}>
      <Route path="a" element={<h1>Page A</h1>} />
      <Route path="b" element={<h1>Page B</h1>} />
    </Route>
  </Routes>
);

function renderRoutes() {
  return render(<MemoryRouter initialEntries={['/a']}>{ROUTES}</MemoryRouter>);
}

describe('scroll restoration', () => {
  let scrollTo: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    scrollY = 0;
    vi.spyOn(window, 'scrollY', 'get').mockImplementation(() => scrollY);
    scrollTo = vi.fn((_x: number, y: number) => scrollWindowTo(y));
    vi.spyOn(window, 'scrollTo').mockImplementation(scrollTo as unknown as typeof window.scrollTo);
  });

  it('opens a new page at the top, and Back and Forward return where each page was left', async () => {
    const user = userEvent.setup();
    renderRoutes();
    act(() => scrollWindowTo(640));
    scrollTo.mockClear();

    await user.click(screen.getByRole('link', { name: 'Open B' }));
    expect(await screen.findByRole('heading', { name: 'Page B' })).toBeInTheDocument();
    expect(scrollTo).toHaveBeenLastCalledWith(0, 0);
    act(() => scrollWindowTo(90));

    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('heading', { name: 'Page A' })).toBeInTheDocument();
    expect(scrollTo).toHaveBeenLastCalledWith(0, 640);

    await user.click(screen.getByRole('button', { name: 'Forward' }));
    expect(await screen.findByRole('heading', { name: 'Page B' })).toBeInTheDocument();
    expect(scrollTo).toHaveBeenLastCalledWith(0, 90);
  });

  it('keeps the position when the same page only replaces its query string', async () => {
    const user = userEvent.setup();
    renderRoutes();
    act(() => scrollWindowTo(300));
    scrollTo.mockClear();
    await user.click(screen.getByRole('button', { name: 'Tidy the query' }));
    expect(scrollTo).not.toHaveBeenCalled();
    expect(scrollY).toBe(300);
  });

  it("Back straight after a scroll, before the scroll's event, keeps the position of the page left", async () => {
    // The browser's own history, and the scroll event of the last scroll not yet come: the position
    // is taken at popstate. (jsdom does not render a popstate's update at once as Chromium's React
    // does, so the order of the listeners is proven by web/e2e/layout.test.mjs, under load.)
    const user = userEvent.setup();
    window.history.replaceState(null, '', '/a');
    render(<BrowserRouter>{ROUTES}</BrowserRouter>);
    act(() => scrollWindowTo(640));
    await user.click(screen.getByRole('link', { name: 'Open B' }));
    expect(await screen.findByRole('heading', { name: 'Page B' })).toBeInTheDocument();
    scrollY = 90; // scrolled, its event a frame away

    const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
    act(() => window.history.back());
    await act(() => popped);
    expect(await screen.findByRole('heading', { name: 'Page A' })).toBeInTheDocument();
    expect(scrollTo).toHaveBeenLastCalledWith(0, 640);

    const forward = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
    act(() => window.history.forward());
    await act(() => forward);
    expect(await screen.findByRole('heading', { name: 'Page B' })).toBeInTheDocument();
    expect(scrollTo).toHaveBeenLastCalledWith(0, 90);
  });
});
