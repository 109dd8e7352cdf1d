import { COUNTY_UNCERTAIN } from '../lib/location';

/** Marks an answer whose county is in doubt: its scores may be another county's. */
export function CountyUncertainBadge() {
  return (
    <span className="status-badge status-warning county-uncertain" data-testid="county-uncertain">
      <span aria-hidden="true">⚠ </span>
      {COUNTY_UNCERTAIN}
    </span>
  );
}
