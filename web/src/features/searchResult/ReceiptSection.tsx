import type { ScoreReceipt } from '../../api/types';
import { countyLabel, matchWords } from '../../lib/location';

const FEMA_NOTE = "FEMA's National Risk Index is meant for planning, not for decisions about a single property.";

/** What the scores were computed from: the NRI release, the county, the providers and each dataset's date. */
export function ReceiptSection({ receipt }: { receipt: ScoreReceipt }) {
  const datasets = receipt.datasets ?? [];
  return (
    <section className="card receipt" aria-labelledby="receipt-title">
      <h2 id="receipt-title" className="card-title">Score receipt</h2>
      <dl className="kv-grid small">
        <div><dt>NRI version</dt><dd>{receipt.nri_version ?? 'N/A'}</dd></div>
        <div><dt>County</dt><dd>{countyLabel(receipt)}</dd></div>
        <div><dt>Geography level</dt><dd>{receipt.geography_level ?? 'N/A'}</dd></div>
        {(receipt.score_geographies ?? []).filter((g) => g.geography_level !== 'county').map((g) => (
          <div key={g.geography_level}>
            <dt>Also scored: {g.geography_level}</dt>
            <dd>{g.geoid ?? 'N/A'}, NRI {g.nri_version ?? 'version unknown'}</dd>
          </div>
        ))}
        <div><dt>Geocode match</dt><dd>{matchWords(receipt.geocode_match)}</dd></div>
        {Object.entries(receipt.providers ?? {}).map(([role, name]) => (
          <div key={role}><dt>{role.replace(/_/g, ' ')}</dt><dd>{name ?? 'none'}</dd></div>
        ))}
        <div><dt>Scored at</dt><dd>{receipt.scored_at ? new Date(receipt.scored_at).toLocaleString() : 'N/A'}</dd></div>
        {receipt.from_cache && (
          <div>
            <dt>Served from</dt>
            <dd>An earlier answer{receipt.cache_max_age_hours ? ` (at most ${receipt.cache_max_age_hours} h old)` : ''}</dd>
          </div>
        )}
      </dl>
      {datasets.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Datasets, scrollable">
          <table className="table table-compact small" aria-label="Datasets">
            <thead>
              <tr><th scope="col">Dataset</th><th scope="col">Version</th><th scope="col">Data as of</th></tr>
            </thead>
            <tbody>
              {datasets.map((d) => (
                <tr key={d.dataset}>
                  <th scope="row">{d.dataset.replace(/_/g, ' ')}</th>
                  <td>{d.version ?? 'N/A'}</td>
                  <td className="nowrap">{d.as_of ?? 'N/A'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted small">{FEMA_NOTE}</p>
    </section>
  );
}
