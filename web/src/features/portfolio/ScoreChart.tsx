import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { count } from './figures';

/** Locations per score bin: its own chunk with recharts, loaded after the first view (issue #14). */
export default function ScoreChart({ data }: { data: { bin: string; locations: number }[] }) {
  return (
    <ResponsiveContainer initialDimension={{ width: 520, height: 260 }}>
      <BarChart data={data} margin={{ left: 0, right: 12, top: 8, bottom: 24 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="bin" tick={{ fontSize: 11 }} interval={0} angle={-30} textAnchor="end" height={44} />
        <YAxis allowDecimals={false} width={48} tick={{ fontSize: 11 }} />
        <Tooltip formatter={(value) => [count(Number(value)), 'Locations']} labelFormatter={(label) => `Score ${label}`} />
        <Bar dataKey="locations" name="Locations" fill="#3182bd" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
