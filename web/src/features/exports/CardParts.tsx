import { display } from '../../lib/exports/groups';

const TOTAL_TOOLTIP = 'Composite of the geo peril scores for all 18 disasters (FEMA National Risk Index).';
export const TOP3_TOOLTIP = 'Top three disaster geo peril';

/** A card's building facts ('Key: value' lines of the address text); unknown shows as a dash. */
export function BuildingDetails({ details }: { details: [string, string][] }) {
  return (
    <section>
      <h3 className="subtitle">Building Details</h3>
      {details.length === 0 ? <p className="muted">No building record.</p> : (
        <dl className="kv-grid small">
          {details.map(([key, value]) => <div key={key}><dt>{key}</dt><dd>{value === 'Unknown' ? '—' : display(value)}</dd></div>)}
        </dl>
      )}
    </section>
  );
}

/** The composite score to two places, a dash when unknown (never 0). */
export function TotalScore({ score }: { score: number | null }) {
  return <><span title={TOTAL_TOOLTIP}>Total Score</span>: <strong>{score === null ? '—' : score.toFixed(2)}</strong></>;
}
