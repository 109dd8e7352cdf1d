import type { TractSummary } from '../../api/types';
import { Banner } from '../../components/Banner';
import { ScoreHistogram } from './Histograms';
import { count, percent, releaseList } from './figures';
import { ScrollBox } from './ScrollBox';

/**
 * The locations with census-tract scores: how many, from which NRI release, and per peril how many
 * are rated high at tract level beside the county level of the same locations. Tract scores rank
 * tracts, county scores rank counties: shown side by side, never merged.
 */
export function TractPanel({ tracts, rows, peril }: { tracts: TractSummary; rows: number; peril: string }) {
  const chosen = tracts.distributions.find((d) => d.peril === peril) ?? tracts.distributions[0];
  const tractReleases = Object.keys(tracts.by_version).join(', ');
  const countyReleases = Object.keys(tracts.county_versions).join(', ');
  return (
    <section className="card" aria-labelledby="tract-panel-title">
      <h2 id="tract-panel-title" className="card-title">Census tract scores</h2>
      <p className="small">
        {count(tracts.locations)} of {count(rows)} locations ({percent(tracts.locations, rows)}) have census-tract scores.
        Tract scores: {releaseList(tracts.by_version)}. County scores of the same locations: {releaseList(tracts.county_versions)}.
      </p>
      {tracts.other_release > 0 && (
        <Banner kind="warning">
          {count(tracts.other_release)} location(s) have tract scores from another NRI release than their county
          scores (tract: {tractReleases}; county: {countyReleases}). Compare each only with scores of its own release.
        </Banner>
      )}
      <p className="muted small">
        Tract scores rank the tract among all US tracts, county scores the county among counties: the two are not
        comparable. The county scores stay the primary ones everywhere else on this page.
      </p>
      {chosen && (
        <ScoreHistogram bins={chosen.bins} testId="tract-histogram">
          Census tract, {chosen.name}: {count(chosen.scored)} location(s) with a tract score.{' '}
          {chosen.unknown > 0 && `${count(chosen.unknown)} with tract scores but none for this peril are left out, not counted as 0. `}
          {count(chosen.high)} rated Relatively High or Very High at tract level; {count(chosen.county_high)} of the same
          locations at county level.
        </ScoreHistogram>
      )}
      <ScrollBox label="Rated high: census tract and county">
        <table className="table table-compact" aria-label="Locations rated Relatively High or Very High: census tract and county">
          <thead>
            <tr>
              <th scope="col">Peril</th>
              <th scope="col">Tract rated high (NRI {tractReleases})</th>
              <th scope="col">County rated high, same locations (NRI {countyReleases})</th>
              <th scope="col">Tract score unknown</th>
            </tr>
          </thead>
          <tbody>
            {tracts.distributions.map((d) => (
              <tr key={d.peril}>
                <th scope="row">{d.name}</th>
                <td>{count(d.high)}</td>
                <td>{count(d.county_high)}</td>
                <td>{count(d.unknown)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}
