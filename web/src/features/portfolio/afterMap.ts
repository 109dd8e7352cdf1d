import { createContext, startTransition, useContext, useEffect, useState } from 'react';

/**
 * Whether the page's first view (headline and county map) is on screen. The charts and the long
 * county table wait for it, so they never hold up the first paint (issue #14). Outside the page
 * (no provider) everything renders at once.
 */
export const FirstViewShown = createContext(true);

export function useFirstViewShown(): boolean {
  return useContext(FirstViewShown);
}

/**
 * True from the frame after `ready` became true: the browser paints what is ready first, then the
 * rest renders as a transition (interruptible, so scrolling and typing stay responsive).
 */
export function useAfterPaint(ready: boolean): boolean {
  const [after, setAfter] = useState(false);
  useEffect(() => {
    if (!ready || after) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      // requestAnimationFrame runs before the paint; the timeout lands after it.
      timer = setTimeout(() => startTransition(() => setAfter(true)));
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [ready, after]);
  return after;
}
