import { useEffect, useLayoutEffect, useRef } from 'react';
import { useLocation, useNavigationType } from 'react-router-dom';

const STORAGE_KEY = 'perilscope.scroll';
/**
 * How long (ms) a Back/Forward keeps trying while the page (a lazy chunk, its data) grows tall
 * enough: generous, for a slow phone; the user's own scrolling ends it at once.
 */
const RESTORE_WINDOW_MS = 10_000;
const USER_SCROLLS = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;

function loadPositions(): Map<string, number> {
  try {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]') as [string, number][];
    return new Map(Array.isArray(saved) ? saved : []);
  } catch {
    return new Map();
  }
}

/** Scroll positions by history entry (location.key), kept across a reload of the tab. */
const positions = loadPositions();
/**
 * While Back or Forward restores a position, the page may still be too short (its lazy chunk
 * loading) and the browser clamps the scroll: that clamped position is not where the user left
 * the page, so it is not recorded over the one being restored.
 */
let restoring = false;

/** The history entry on screen (its location.key): set by the hook before it scrolls for a new one. */
let onScreenKey: string | null = null;

function remember(): void {
  if (!restoring && onScreenKey !== null) positions.set(onScreenKey, window.scrollY);
}

/*
 * Back and Forward: the position of the page being left is taken at popstate, before the router
 * hears it. React renders the router's popstate update at once (in the microtask after the
 * router's listener), and a window runs its listeners in the order they were added, capturing or
 * not (Chromium 156): a listener added by the hook, after the router's (whose layout effect runs
 * first), found the next entry already on screen, and when Back came before the frame that
 * delivers the last scroll's event, that position was never recorded (Forward then went to the
 * top: the layout e2e test's flake). Added as this module loads, before the app renders, this
 * listener runs first.
 */
if (typeof window !== 'undefined') window.addEventListener('popstate', remember);

function persist(): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...positions].slice(-100)));
  } catch {
    /* storage full or blocked: positions still work for this page's life */
  }
}

/**
 * What react-router's <ScrollRestoration> does, for the BrowserRouter this app uses (that
 * component needs a data router): a new page starts at the top (or at its #anchor); Back and
 * Forward return to where that page was left. A replace on the same path (a query string
 * tidied up) keeps the position.
 */
export function useScrollRestoration(): void {
  const location = useLocation();
  const navigationType = useNavigationType();
  const previousPath = useRef<string | null>(null);
  useEffect(() => {
    if ('scrollRestoration' in window.history) window.history.scrollRestoration = 'manual';
    // A scroll event arrives a frame late: a click or Back straight after scrolling would find
    // the page already switched. Both take the position first, while the page is still the old
    // one (a click here, in the capture phase; Back by the module's popstate listener above).
    window.addEventListener('scroll', remember, { passive: true });
    document.addEventListener('click', remember, { capture: true });
    window.addEventListener('pagehide', persist);
    return () => {
      window.removeEventListener('scroll', remember);
      document.removeEventListener('click', remember, { capture: true });
      window.removeEventListener('pagehide', persist);
      onScreenKey = null;
    };
  }, []);

  useLayoutEffect(() => {
    // The entry on screen changes before this hook scrolls, so the scroll a navigation causes is
    // never recorded against the page being left.
    onScreenKey = location.key;
    const firstRender = previousPath.current === null;
    const samePath = previousPath.current === location.pathname;
    previousPath.current = location.pathname;
    const saved = positions.get(location.key);
    if (navigationType === 'POP' && (saved !== undefined || (!firstRender && !location.hash))) {
      // An entry never scrolled was left at the top.
      const target = saved ?? 0;
      let frame = 0;
      const deadline = performance.now() + RESTORE_WINDOW_MS;
      const stop = () => {
        restoring = false;
        cancelAnimationFrame(frame);
        USER_SCROLLS.forEach((type) => window.removeEventListener(type, stop));
      };
      const attempt = () => {
        window.scrollTo(0, target);
        if (Math.abs(window.scrollY - target) > 1 && performance.now() < deadline) frame = requestAnimationFrame(attempt);
        else stop();
      };
      USER_SCROLLS.forEach((type) => window.addEventListener(type, stop, { passive: true }));
      restoring = true;
      attempt();
      return stop;
    }
    if (firstRender && navigationType === 'POP' && !location.hash) return undefined;
    if (location.hash) {
      document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
    } else if (!(navigationType === 'REPLACE' && samePath)) {
      window.scrollTo(0, 0);
    }
    return undefined;
  }, [location.key, location.pathname, location.hash, navigationType]);
}
