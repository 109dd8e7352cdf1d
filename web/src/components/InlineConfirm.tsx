import type { ReactNode } from 'react';

interface InlineConfirmProps {
  /** The group's accessible name, a question such as "Revoke my key?". */
  label: string;
  /** What confirming does, said before the buttons. */
  message: ReactNode;
  /** The confirm button's text ("Revoke"), and its text while the action runs ("Revoking..."). */
  action: string;
  busyAction: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  className?: string;
}

/** A destructive action asked once more in place: the warning, a red confirm button and Cancel. */
export function InlineConfirm({ label, message, action, busyAction, busy, onConfirm, onCancel, className }: InlineConfirmProps) {
  return (
    <div className={['inline-confirm', className].filter(Boolean).join(' ')} role="group" aria-label={label}>
      <span className="small">{message}</span>
      <button type="button" className="btn btn-danger btn-sm" disabled={busy} onClick={onConfirm}>
        {busy ? busyAction : action}
      </button>
      <button type="button" className="btn btn-outline btn-sm" disabled={busy} onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
