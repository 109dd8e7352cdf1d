import { useMemo, useState } from 'react';
import type { CountyExposure } from '../../api/types';
import { amount, count, score } from './figures';
import { ScrollBox } from './ScrollBox';

type Column = 'county' | 'state' | 'locations' | 'value' | 'composite';
const NUMERIC: Column[] = ['locations', 'value', 'composite'];

function sortKey(county: CountyExposure, column: Column): string | number | null {
  switch (column) {
    case 'county': return county.county_name ?? county.county_fips;
    case 'state': return county.state ?? '';
    case 'locations': return county.locations;
    case 'value': return county.value;
    case 'composite': return county.composite_score;
  }
}

/** Unknown sorts last whichever the direction: it is not a small number. */
function compare(a: string | number | null, b: string | number | null, ascending: boolean): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const order = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
  return ascending ? order : -order;
}

/** Locations per county, sortable by any column; also the map's text alternative. */
export function CountyTable({ counties, valueName }: { counties: CountyExposure[]; valueName: string | null }) {
  const [sort, setSort] = useState<{ column: Column; ascending: boolean }>({ column: 'locations', ascending: false });
  const sorted = useMemo(
    () => [...counties].sort((a, b) => compare(sortKey(a, sort.column), sortKey(b, sort.column), sort.ascending)
      || a.county_fips.localeCompare(b.county_fips)),
    [counties, sort],
  );
  const header = (column: Column, label: string) => (
    <th scope="col" aria-sort={sort.column === column ? (sort.ascending ? 'ascending' : 'descending') : undefined}>
      <button
        type="button"
        className="sort-button"
        onClick={() => setSort({ column, ascending: sort.column === column ? !sort.ascending : !NUMERIC.includes(column) })}
      >
        {label}
        <span aria-hidden="true">{sort.column === column ? (sort.ascending ? ' ▲' : ' ▼') : ''}</span>
      </button>
    </th>
  );
  return (
    <ScrollBox label="Locations per county" className="county-table">
      <table className="table table-compact" aria-label="Locations per county">
        <thead>
          <tr>
            {header('county', 'County')}
            {header('state', 'State')}
            {header('locations', 'Locations')}
            {valueName !== null && header('value', valueName)}
            {header('composite', 'Composite score')}
            <th scope="col">Top hazards</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((county) => (
            <tr key={county.county_fips}>
              <th scope="row">{county.county_name ?? county.county_fips} <span className="muted small">{county.county_fips}</span></th>
              <td>{county.state ?? '—'}</td>
              <td>{count(county.locations)}</td>
              {valueName !== null && <td>{county.value === null ? '—' : amount(county.value)}</td>}
              <td>{score(county.composite_score)}{county.composite_rating ? ` (${county.composite_rating})` : ''}</td>
              <td>{county.top_hazards.length ? county.top_hazards.map((h) => `${h.name} ${h.score.toFixed(1)}`).join(', ') : 'N/A'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
