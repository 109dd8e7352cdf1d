import { Suspense, lazy, type ReactNode } from 'react';
import type { PerilDistribution } from '../../api/types';
import { binLabel, count, percent, unknownParts } from './figures';
import { ScrollBox } from './ScrollBox';
import { useFirstViewShown } from './afterMap';

const ScoreChart = lazy(() => import('./ScoreChart'));

/** The chosen peril's scores across the book, with every peril's high-rated count beside it. */
export function Histograms({ distributions, peril, rows }: { distributions: PerilDistribution[]; peril: string; rows: number }) {
  const chosen = distributions.find((d) => d.peril === peril) ?? distributions[0];
  if (!chosen) return null;
  return (
    <>
      <ScoreHistogram bins={chosen.bins} testId="histogram">
        {chosen.name}: {count(chosen.scored)} location(s) with a score, by score (0 to 100).{' '}
        {chosen.unknown > 0 && `${count(chosen.unknown)} without one are left out, not counted as 0 (${unknownParts(chosen.unknown, chosen.ratings).join('; ')}). `}
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
  const shown = useFirstViewShown();
  const data = bins.map((locations, i) => ({ bin: binLabel(i, bins.length), locations }));
  return (
    <figure className="portfolio-histogram" data-testid={testId}>
      {/* The box keeps its height while the chart loads: nothing below it moves. */}
      <div style={{ width: '100%', height: 260 }}>
        {shown && <Suspense fallback={null}><ScoreChart data={data} /></Suspense>}
      </div>
      <figcaption className="muted small">{children}</figcaption>
    </figure>
  );
}
