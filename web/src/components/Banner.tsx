import type { ReactNode } from 'react';

export type BannerKind = 'success' | 'error' | 'warning' | 'info';

interface BannerProps {
  kind: BannerKind;
  children: ReactNode;
  className?: string;
}

/** Status banner (SPEC §2): kinds success, error, warning, info. Errors are alerts. */
export function Banner({ kind, children, className }: BannerProps) {
  return (
    <div
      className={['banner', `banner-${kind}`, className].filter(Boolean).join(' ')}
      role={kind === 'error' ? 'alert' : 'status'}
    >
      <span className="banner-icon" aria-hidden="true">
        {kind === 'success' ? '✓' : kind === 'error' ? '!' : kind === 'warning' ? '⚠' : 'i'}
      </span>
      <div className="banner-text">{children}</div>
    </div>
  );
}
