import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ReactNode } from 'react';
import type { PerilDistribution } from '../../api/types';
import { binLabel, count, percent } from './figures';
import { ScrollBox } from './ScrollBox';

/** The chosen peril's scores across the book, with every peril's high-rated count beside it. */
export function Histograms({ distributions, peril, rows }: { distributions: PerilDistribution[]; peril: string; rows: number }) {
  const chosen = distributions.find((d) => d.peril === peril) ?? distributions[0];
  if (!chosen) return null;
  return (
    <>
      <ScoreHistogram bins={chosen.bins} testId="histogram">
        {chosen.name}: {count(chosen.scored)} location(s) with a score, by score (0 to 100).{' '}
        {chosen.unknown > 0 && `${count(chosen.unknown)} without one (not located, or the peril does not apply there) are left out, not counted as 0. `}
        {count(chosen.high)} rated Relatively High or Very High.
      </ScoreHistogram>
      <details className="peril-table">
        <summary>Every peril: locations rated Relatively High or Very High</summary>
        <ScrollBox label="Locations rated high, per peril">
          <table className="table table-compact" aria-label="Locations rated high, per peril">
            <thead>
              <tr>
                <th scope="col">Peril</th>
                <th scope="col">Rated high</th>
                <th scope="col">Share of rows</th>
                <th scope="col">With a score</th>
                <th scope="col">Unknown</th>
              </tr>
            </thead>
            <tbody>
              {distributions.map((d) => (
                <tr key={d.peril}>
                  <th scope="row">{d.name}</th>
                  <td>{count(d.high)}</td>
                  <td>{percent(d.high, rows)}</td>
                  <td>{count(d.scored)}</td>
                  <td>{count(d.unknown)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      </details>
    </>
  );
}

/** Locations by score (0 to 100) in equal bins, the caption saying what is counted and what is left out. */
export function ScoreHistogram({ bins, testId, children }: { bins: number[]; testId: string; children: ReactNode }) {
  const data = bins.map((locations, i) => ({ bin: binLabel(i, bins.length), locations }));
  return (
    <figure className="portfolio-histogram" data-testid={testId}>
      <div style={{ width: '100%', height: 260 }}>
        <ResponsiveContainer initialDimension={{ width: 520, height: 260 }}>
          <BarChart data={data} margin={{ left: 0, right: 12, top: 8, bottom: 24 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="bin" tick={{ fontSize: 11 }} interval={0} angle={-30} textAnchor="end" height={44} />
            <YAxis allowDecimals={false} width={48} tick={{ fontSize: 11 }} />
            <Tooltip formatter={(value) => [count(Number(value)), 'Locations']} labelFormatter={(label) => `Score ${label}`} />
            <Bar dataKey="locations" name="Locations" fill="#3182bd" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="muted small">{children}</figcaption>
    </figure>
  );
}
