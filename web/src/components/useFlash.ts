import { useCallback, useEffect, useState } from 'react';

/** A message that clears itself: SPEC §9's success banners show for 3 seconds. */
export function useFlash(durationMs = 3000): [string | null, (message: string) => void] {
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    if (message === null) return undefined;
    const timer = setTimeout(() => setMessage(null), durationMs);
    return () => clearTimeout(timer);
  }, [message, durationMs]);
  const show = useCallback((text: string) => setMessage(text), []);
  return [message, show];
}
