import type { ReactNode } from 'react';

/** A table that may scroll sideways on a phone: focusable, so the keyboard can scroll it too. */
export function ScrollBox({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div className={['table-scroll', className].filter(Boolean).join(' ')} tabIndex={0} role="region" aria-label={`${label}, scrollable`}>
      {children}
    </div>
  );
}
