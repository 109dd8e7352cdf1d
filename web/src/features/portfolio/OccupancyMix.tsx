import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SectorMix } from '../../api/types';
import { NO_SECTOR, count, orderedRatings, ratingLabel } from './figures';
import { ScrollBox } from './ScrollBox';

/** A chart label that fits one line: the sector's first words and its code. */
function shortName(sector: SectorMix): string {
  const name = sector.name ?? 'NAICS';
  const short = name.length > 18 ? `${name.slice(0, 17).replace(/[\s,]+\S*$/, '')}…` : name;
  return `${short} (${sector.sector})`;
}

function sectorName(sector: SectorMix): string {
  if (sector.sector === NO_SECTOR) return 'No known occupant';
  return sector.name ? `${sector.name} (${sector.sector})` : `NAICS ${sector.sector}`;
}

/** Locations by the NAICS sector of their main occupant, and that sector against the chosen peril's rating. */
export function OccupancyMix({ sectors, perilName }: { sectors: SectorMix[]; perilName: string }) {
  const known = sectors.filter((s) => s.sector !== NO_SECTOR);
  const ratings = orderedRatings(sectors.flatMap((s) => Object.keys(s.ratings)));
  const data = known.slice(0, 12).map((s) => ({ name: shortName(s), locations: s.locations }));
  const height = Math.max(120, data.length * 34 + 40);
  return (
    <>
      {known.length === 0 ? (
        <p className="muted">No location has an occupant with a NAICS code.</p>
      ) : (
        <figure data-testid="occupancy-chart">
          <div style={{ width: '100%', height }}>
            <ResponsiveContainer initialDimension={{ width: 520, height }}>
              <BarChart data={data} layout="vertical" margin={{ left: 8, right: 16, top: 4, bottom: 4 }}>
                <CartesianGrid strokeDasharray="3 3" horizontal={false} />
                <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
                <YAxis type="category" dataKey="name" width={140} interval={0} tick={{ fontSize: 11 }} />
                <Tooltip formatter={(value) => [count(Number(value)), 'Locations']} />
                <Bar dataKey="locations" fill="#0f7c8c" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
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
