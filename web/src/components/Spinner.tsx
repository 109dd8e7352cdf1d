interface SpinnerProps {
  label?: string;
  size?: 'sm' | 'md';
  className?: string;
}

/** A spinner with a visible text; the text is announced to screen readers. */
export function Spinner({ label, size = 'md', className }: SpinnerProps) {
  return (
    <span className={['spinner-wrap', className].filter(Boolean).join(' ')} role="status" aria-live="polite">
      <span className={`spinner spinner-${size}`} aria-hidden="true" />
      {label ? <span className="spinner-label">{label}</span> : <span className="visually-hidden">Loading</span>}
    </span>
  );
}

export function PageSpinner({ label = 'Loading...' }: { label?: string }) {
  return (
    <div className="page-spinner">
      <Spinner label={label} />
    </div>
  );
}
