import { Suspense, lazy } from 'react';
import type { SectorMix } from '../../api/types';
import { NOT_COVERED_SECTOR, NO_SECTOR, count, orderedRatings, ratingLabel } from './figures';
import { ScrollBox } from './ScrollBox';
import { useFirstViewShown } from './afterMap';

const SectorChart = lazy(() => import('./SectorChart'));

/** A chart label that fits one line: the sector's first words and its code. */
function shortName(sector: SectorMix): string {
  const name = sector.name ?? 'NAICS';
  const short = name.length > 18 ? `${name.slice(0, 17).replace(/[\s,]+\S*$/, '')}…` : name;
  return `${short} (${sector.sector})`;
}

function sectorName(sector: SectorMix): string {
  if (sector.sector === NO_SECTOR) return 'No known occupant';
  if (sector.sector === NOT_COVERED_SECTOR) return 'Not covered by occupant data';
  return sector.name ? `${sector.name} (${sector.sector})` : `NAICS ${sector.sector}`;
}

/** Locations by the NAICS sector of their main occupant, and that sector against the chosen peril's rating. */
export function OccupancyMix({ sectors, perilName }: { sectors: SectorMix[]; perilName: string }) {
  const known = sectors.filter((s) => s.sector !== NO_SECTOR && s.sector !== NOT_COVERED_SECTOR);
  const ratings = orderedRatings(sectors.flatMap((s) => Object.keys(s.ratings)));
  const data = known.slice(0, 12).map((s) => ({ name: shortName(s), locations: s.locations }));
  const height = Math.max(120, data.length * 34 + 40);
  const shown = useFirstViewShown();
  return (
    <>
      {known.length === 0 ? (
        <p className="muted">No location has an occupant with a NAICS code.</p>
      ) : (
        <figure data-testid="occupancy-chart">
          <div style={{ width: '100%', height }}>
            {shown && <Suspense fallback={null}><SectorChart data={data} height={height} /></Suspense>}
          </div>
          <figcaption className="muted small">
            {known.length > data.length ? `The ${data.length} largest of ${known.length} sectors. ` : ''}
            Each location counts once, under the sector of its most common occupant; the table has every sector in full.
          </figcaption>
        </figure>
      )}
      <ScrollBox label="Locations by sector and rating">
        <table className="table table-compact" aria-label={`Locations by sector and ${perilName} rating`}>
          <thead>
            <tr>
              <th scope="col">Sector</th>
              <th scope="col">Locations</th>
              {ratings.map((rating) => <th scope="col" key={rating}>{ratingLabel(rating)}</th>)}
            </tr>
          </thead>
          <tbody>
            {sectors.map((sector) => (
              <tr key={sector.sector}>
                <th scope="row">{sectorName(sector)}</th>
                <td>{count(sector.locations)}</td>
                {ratings.map((rating) => <td key={rating}>{count(sector.ratings[rating] ?? 0)}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </>
  );
}
