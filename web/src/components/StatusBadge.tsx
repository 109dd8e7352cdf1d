import { isUnknown } from '../lib/resultView';

/** An occupant's business status: green when operating, grey otherwise, a dash when unknown (SPEC §2). */
export function StatusBadge({ status }: { status: unknown }) {
  return (
    <span className={`status-badge ${status === 'OPERATIONAL' ? 'status-ok' : 'status-other'}`}>
      {isUnknown(status) ? '—' : String(status)}
    </span>
  );
}
