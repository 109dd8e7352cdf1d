import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { count } from './figures';

/** Locations per NAICS sector: its own chunk with recharts, loaded after the first view (issue #14). */
export default function SectorChart({ data, height }: { data: { name: string; locations: number }[]; height: number }) {
  return (
    <ResponsiveContainer initialDimension={{ width: 520, height }}>
      <BarChart data={data} layout="vertical" margin={{ left: 8, right: 16, top: 4, bottom: 4 }}>
        <CartesianGrid strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
        <YAxis type="category" dataKey="name" width={140} interval={0} tick={{ fontSize: 11 }} />
        <Tooltip formatter={(value) => [count(Number(value)), 'Locations']} />
        <Bar dataKey="locations" fill="#0f7c8c" isAnimationActive={false} />
      </BarChart>
    </ResponsiveContainer>
  );
}
