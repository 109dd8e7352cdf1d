import { Bar, BarChart, CartesianGrid, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { HAZARDS } from '../lib/resultView';
import { hazardScoreText, ratingText, unscoredMark, unscoredSentences } from '../lib/nriRatings';

interface Props {
  perils: Record<string, number | null>;
  ratings?: Record<string, string | null> | null;
}

function scoreLabel(value: unknown): string {
  return typeof value === 'number' ? value.toFixed(1) : '';
}

/**
 * All 18 geo peril scores as bars. A hazard without a score gets no bar (never a 0); its axis
 * label, the caption and the table say why in FEMA's words, from the rating the answer gives:
 * Not Applicable, Insufficient Data or No Rating are three different answers.
 */
export default function PerilChart({ perils, ratings }: Props) {
  const rows = HAZARDS.map((h) => ({
    code: h.code,
    name: h.name,
    axisName: h.short ?? h.name,
    score: perils[`${h.code}_Score`] ?? null,
    rating: ratings?.[h.code] ?? null,
  }));
  const marks = new Map(rows.map((r) => [r.axisName, unscoredMark(r.score, r.rating)]));
  const unscored = unscoredSentences(rows);
  return (
    <figure className="peril-chart" data-testid="peril-chart">
      <div style={{ width: '100%', height: 560 }}>
        <ResponsiveContainer initialDimension={{ width: 520, height: 560 }}>
          <BarChart data={rows} layout="vertical" margin={{ left: 8, right: 40, top: 8, bottom: 8 }}>
            <CartesianGrid strokeDasharray="3 3" horizontal={false} />
            <XAxis type="number" domain={[0, 100]} />
            <YAxis
              type="category"
              dataKey="axisName"
              width={170}
              interval={0}
              tick={{ fontSize: 12 }}
              tickFormatter={(name: string) => `${name}${marks.get(name) ?? ''}`}
            />
            <Tooltip formatter={(value, _name, item) => hazardScoreText(typeof value === 'number' ? value : null, (item?.payload as { rating?: string | null } | undefined)?.rating)} />
            <Bar dataKey="score" name="Score (0-100)" fill="#0f7c8c" isAnimationActive={false}>
              <LabelList dataKey="score" position="right" fontSize={11} formatter={scoreLabel} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="muted small">
        FEMA National Risk Index scores, 0 to 100 (county level).
        {unscored.map((sentence) => ` ${sentence}`).join('')}
      </figcaption>
      <details className="peril-table">
        <summary>All 18 scores as a table</summary>
        <table className="table table-compact" aria-label="Geo peril scores">
          <thead>
            <tr>
              <th scope="col">Hazard</th>
              <th scope="col">Score</th>
              <th scope="col">Rating</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.code}>
                <th scope="row">{r.name}</th>
                <td>{hazardScoreText(r.score, r.rating)}</td>
                <td>{ratingText(r.rating)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
