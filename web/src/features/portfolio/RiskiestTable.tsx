import { Link } from 'react-router-dom';
import type { RiskyLocation } from '../../api/types';
import { countyLabel, sameRelease, score } from './figures';
import { ScrollBox } from './ScrollBox';

/** The export viewer's id of an address group (lib/exports/groups.ts: export:{file}:{index}). */
function resultLink(filename: string, index: number): string {
  return `/search-result/${encodeURIComponent(`export:${filename}:${index}`)}`;
}

export function RiskiestTable({ filename, riskiest, perilName }: { filename: string; riskiest: RiskyLocation[]; perilName: string }) {
  if (riskiest.length === 0) return <p className="muted">No location has a {perilName} score.</p>;
  // The tract's score beside the county's, only when some of these locations have one.
  const withTract = riskiest.some((location) => location.tract_score !== null);
  return (
    <ScrollBox label="Riskiest locations">
      <table className="table table-compact" aria-label={`The ${riskiest.length} riskiest locations by ${perilName}`}>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Row</th>
            <th scope="col">Address</th>
            <th scope="col">County</th>
            <th scope="col">{withTract ? 'County score' : 'Score'}</th>
            <th scope="col">{withTract ? 'County rating' : 'Rating'}</th>
            {withTract && <th scope="col">Census tract score</th>}
          </tr>
        </thead>
        <tbody>
          {riskiest.map((location, i) => (
            <tr key={location.index}>
              <td>{i + 1}</td>
              <td>{location.row}</td>
              <td><Link to={resultLink(filename, location.index)}>{location.address || `Row ${location.row}`}</Link></td>
              <td>{location.county_fips ? countyLabel({ ...location, county_fips: location.county_fips }) : "—"}</td>
              <td>{score(location.score)}</td>
              <td>{location.rating ?? '—'}</td>
              {withTract && <td>{tractCell(location)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}

/** "61.5 Relatively High", with the tract's release when it is not the county's. */
function tractCell(location: RiskyLocation): string {
  if (location.tract_score === null) return 'N/A';
  const rating = location.tract_rating ? ` ${location.tract_rating}` : '';
  const release = sameRelease(location.tract_nri_version, location.nri_version)
    ? ''
    : ` (NRI ${location.tract_nri_version}; county NRI ${location.nri_version})`;
  return `${score(location.tract_score)}${rating}${release}`;
}
