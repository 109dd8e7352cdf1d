import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { HAZARDS } from './resultView';

/** All 18 geo peril scores as bars; not-applicable hazards show as N/A, never as 0. */
export default function PerilChart({ perils }: { perils: Record<string, number | null> }) {
  const data = HAZARDS.map((h) => ({ name: h.name, score: perils[`${h.code}_Score`] ?? null }));
  const notApplicable = data.filter((d) => d.score === null).map((d) => d.name);
  return (
    <figure className="peril-chart" data-testid="peril-chart">
      <div style={{ width: '100%', height: 520 }}>
        <ResponsiveContainer>
          <BarChart data={data} layout="vertical" margin={{ left: 24, right: 16, top: 8, bottom: 8 }}>
            <CartesianGrid strokeDasharray="3 3" horizontal={false} />
            <XAxis type="number" domain={[0, 100]} />
            <YAxis type="category" dataKey="name" width={140} interval={0} tick={{ fontSize: 12 }} />
            <Tooltip formatter={(value) => (typeof value === 'number' ? value.toFixed(1) : 'N/A')} />
            <Bar dataKey="score" name="Score (0-100)" fill="#0f7c8c" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="muted small">
        FEMA National Risk Index scores, 0 to 100 (county level).
        {notApplicable.length > 0 && ` Not applicable here (N/A): ${notApplicable.join(', ')}.`}
      </figcaption>
    </figure>
  );
}
