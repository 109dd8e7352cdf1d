import { useId, useState } from 'react';
import type { CountyAlternative, ResultLocation } from '../../api/types';
import { CountyUncertainBadge } from '../../components/CountyUncertainBadge';
import { countyLabel, matchWords, methodWords, percent } from '../../lib/location';
import { formatScore } from '../../lib/resultView';

/** 'Other possible counties (N)': a button that shows or hides their table (one click away). */
export function CountyAlternatives({ alternatives }: { alternatives: CountyAlternative[] }) {
  const [open, setOpen] = useState(false);
  const tableId = useId();
  if (alternatives.length === 0) return null;
  return (
    <div className="county-alternatives">
      <button
        type="button"
        className="btn btn-outline btn-sm"
        aria-expanded={open}
        aria-controls={tableId}
        onClick={() => setOpen((value) => !value)}
      >
        <span aria-hidden="true">{open ? '▾ ' : '▸ '}</span>
        Other possible counties ({alternatives.length})
      </button>
      <div id={tableId} className="table-scroll" hidden={!open} tabIndex={0} role="region" aria-label="Other possible counties, scrollable">
        <table className="table table-compact small" aria-label="Other possible counties">
          <thead>
            <tr>
              <th scope="col">County</th>
              <th scope="col">ZIP share</th>
              <th scope="col">Total score</th>
              <th scope="col">Rating</th>
            </tr>
          </thead>
          <tbody>
            {alternatives.map((county) => (
              <tr key={county.county_fips}>
                <th scope="row">{countyLabel(county)}</th>
                <td>{percent(county.share)}</td>
                <td>{formatScore(county.Total_Score)}</td>
                <td>{county.risk_rating ?? 'N/A'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** Shown above the scores when the county is uncertain: they may be another county's. */
export function CountyUncertainWarning({ location }: { location: ResultLocation }) {
  return (
    <div className="county-warning" role="note" aria-label="County uncertain">
      <p>
        <CountyUncertainBadge />{' '}
        These scores are for {countyLabel(location)}, but the address may be in another county.
      </p>
      <CountyAlternatives alternatives={location.alternatives} />
    </div>
  );
}

interface Props {
  location: ResultLocation;
  /** The receipt's match level of the point (building, ZIP centre, ...). */
  geocodeMatch: string | null;
}

/** Where the answer was located, how, and how sure it is. */
export function LocationSection({ location, geocodeMatch }: Props) {
  return (
    <section className="card" aria-labelledby="location-title">
      <h2 className="card-title">
        <span id="location-title">Location</span>
        {location.low_confidence && <CountyUncertainBadge />}
      </h2>
      <dl className="kv-grid">
        <div><dt>County</dt><dd>{countyLabel(location)}</dd></div>
        <div><dt>Located by</dt><dd>{methodWords(location.method)}</dd></div>
        <div><dt>Confidence</dt><dd>{percent(location.confidence)}</dd></div>
        <div><dt>Point matched</dt><dd>{matchWords(geocodeMatch)}</dd></div>
        {location.tract_geoid && <div><dt>Census tract</dt><dd>{location.tract_geoid}</dd></div>}
      </dl>
      {location.notes.length > 0 && (
        <ul className="location-notes small" aria-label="Notes on the location">
          {location.notes.map((note) => <li key={note}>{note}</li>)}
        </ul>
      )}
      {/* With the warning the alternatives are by the scores; otherwise here, when there are any. */}
      {!location.low_confidence && <CountyAlternatives alternatives={location.alternatives} />}
    </section>
  );
}
