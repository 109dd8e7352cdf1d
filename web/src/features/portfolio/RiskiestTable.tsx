import { Link } from 'react-router-dom';
import type { RiskyLocation } from '../../api/types';
import { countyLabel, score } from './figures';
import { ScrollBox } from './ScrollBox';

/** The export viewer's id of an address group (lib/exports/groups.ts: export:{file}:{index}). */
function resultLink(filename: string, index: number): string {
  return `/search-result/${encodeURIComponent(`export:${filename}:${index}`)}`;
}

export function RiskiestTable({ filename, riskiest, perilName }: { filename: string; riskiest: RiskyLocation[]; perilName: string }) {
  if (riskiest.length === 0) return <p className="muted">No location has a {perilName} score.</p>;
  return (
    <ScrollBox label="Riskiest locations">
      <table className="table table-compact" aria-label={`The ${riskiest.length} riskiest locations by ${perilName}`}>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Row</th>
            <th scope="col">Address</th>
            <th scope="col">County</th>
            <th scope="col">Score</th>
            <th scope="col">Rating</th>
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
              <td>{location.rating ?? 'N/A'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
