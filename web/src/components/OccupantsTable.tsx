import type { Occupant } from '../api/types';
import { CLOSED, isUnknown, operations } from '../lib/resultView';
import { StatusBadge } from './StatusBadge';

interface Props {
  occupants: Occupant[];
  caption?: string;
  /** Adds a Status column (the dashboard); without it a closed business is flagged next to its name. */
  showStatus?: boolean;
  /** false: no occupant source covers the address, so its occupants are unknown (not 'none'). */
  covered?: boolean;
}

/** SPEC §2 'Occupant Detail': Occupant, Operations, NAICS Code (with its title as a tooltip). */
export function OccupantsTable({ occupants, caption, showStatus = false, covered = true }: Props) {
  if (!covered) return <p className="muted">Not covered: no occupant data covers this address, so its occupants are unknown.</p>;
  if (occupants.length === 0) return <p className="muted">No occupants on record at this address.</p>;
  return (
    // Focusable, so keyboard users can scroll a long list (WCAG 2.1.1; axe scrollable-region-focusable).
    <div className="table-scroll occupant-scroll occupants-compact" tabIndex={0} role="region" aria-label="Occupants, scrollable">
      <table className="table" aria-label="Occupants">
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            <th scope="col">Occupant</th>
            <th scope="col">Operations</th>
            <th scope="col">NAICS Code</th>
            {showStatus && <th scope="col" className="occupant-status-col">Status</th>}
          </tr>
        </thead>
        <tbody>
          {occupants.map((o, i) => (
            <tr key={`${o.name}-${i}`}>
              <td>
                {isUnknown(o.name) ? 'N/A' : o.name}
                {!showStatus && o.business_status === CLOSED && ' '}
                {!showStatus && o.business_status === CLOSED && (
                  <span className="status-badge status-warning occupant-closed">Closed permanently</span>
                )}
                {/* On a phone the Status column gives way to NAICS; a status other than operating shows here instead. */}
                {showStatus && !isUnknown(o.business_status) && o.business_status !== 'OPERATIONAL' && (
                  <span className="status-badge status-other occupant-status-inline">{o.business_status}</span>
                )}
              </td>
              <td>{operations(o)}</td>
              <td title={o.naics_title ?? undefined}>
                {isUnknown(o.naics_code) ? 'N/A' : o.naics_code}
                {o.naics_title && <span className="muted small naics-title"> {o.naics_title}</span>}
              </td>
              {showStatus && (
                <td className="occupant-status-col">
                  <StatusBadge status={o.business_status} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
