import type { TractScores } from '../../api/types';
import { Banner } from '../../components/Banner';
import { HAZARDS, formatScore } from '../../lib/resultView';
import { hazardScoreText, ratingText } from '../../lib/nriRatings';

/** The census tract's own NRI scores, beside the county's, with the release they come from. */
export function TractSection({ tract }: { tract: TractScores }) {
  const top3 = tract.Top3_Scores_Combined.split('\n').filter(Boolean);
  return (
    <section className="card tract-scores" aria-labelledby="tract-title">
      <h2 id="tract-title" className="card-title">Census tract</h2>
      {tract.notes.map((note) => (
        <Banner key={note} kind="warning">{note}</Banner>
      ))}
      <dl className="kv-grid small">
        <div><dt>Tract</dt><dd>{tract.tract_geoid}</dd></div>
        <div><dt>NRI version</dt><dd>{tract.nri_version ?? 'N/A'}</dd></div>
        <div><dt>Tract score</dt><dd data-testid="tract-total-score">{formatScore(tract.Total_Score)}</dd></div>
        <div><dt>Tract rating</dt><dd>{tract.ratings.Total ?? 'N/A'}</dd></div>
        <div><dt>Tract from</dt><dd>{tract.tract_from}</dd></div>
        <div><dt>Top 3 in the tract</dt><dd>{top3.length ? top3.join('; ') : 'N/A'}</dd></div>
      </dl>
      <details>
        <summary>All 18 tract scores</summary>
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Census tract scores, scrollable">
          <table className="table table-compact small" aria-label="Census tract scores">
            <thead>
              <tr><th scope="col">Hazard</th><th scope="col">Score</th><th scope="col">Rating</th></tr>
            </thead>
            <tbody>
              {HAZARDS.map((h) => (
                <tr key={h.code}>
                  <th scope="row">{h.name}</th>
                  <td>{hazardScoreText(tract.perils[`${h.code}_Score`] ?? null, tract.ratings[h.code], 2)}</td>
                  <td>{ratingText(tract.ratings[h.code])}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      <p className="muted small">{tract.about}</p>
    </section>
  );
}
