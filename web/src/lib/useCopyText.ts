import { useCallback, useState } from 'react';

/** Copy a text to the clipboard and say how it went: `copied` when done, `blocked` when the browser refuses. */
export function useCopyText(copied: string, blocked: string): [string | null, (text: string) => Promise<void>] {
  const [outcome, setOutcome] = useState<string | null>(null);
  const copy = useCallback(
    async (text: string) => {
      try {
        await navigator.clipboard.writeText(text);
        setOutcome(copied);
      } catch {
        setOutcome(blocked);
      }
    },
    [copied, blocked],
  );
  return [outcome, copy];
}
