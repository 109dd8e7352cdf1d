import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SectorMix } from '../../api/types';
import { NO_SECTOR, count, orderedRatings, ratingLabel } from './figures';

function sectorName(sector: SectorMix): string {
  if (sector.sector === NO_SECTOR) return 'No known occupant';
  return sector.name ? `${sector.name} (${sector.sector})` : `NAICS ${sector.sector}`;
}

/** Locations by the NAICS sector of their main occupant, and that sector against the chosen peril's rating. */
export function OccupancyMix({ sectors, perilName }: { sectors: SectorMix[]; perilName: string }) {
  const known = sectors.filter((s) => s.sector !== NO_SECTOR);
  const ratings = orderedRatings(sectors.flatMap((s) => Object.keys(s.ratings)));
  const data = known.slice(0, 12).map((s) => ({ name: s.name ?? s.sector, locations: s.locations }));
  return (
    <>
      {known.length === 0 ? (
        <p className="muted">No location has an occupant with a NAICS code.</p>
      ) : (
        <figure data-testid="occupancy-chart">
          <div style={{ width: '100%', height: Math.max(120, data.length * 30 + 40) }}>
            <ResponsiveContainer initialDimension={{ width: 520, height: Math.max(120, data.length * 30 + 40) }}>
              <BarChart data={data} layout="vertical" margin={{ left: 8, right: 16, top: 4, bottom: 4 }}>
                <CartesianGrid strokeDasharray="3 3" horizontal={false} />
                <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
                <YAxis type="category" dataKey="name" width={150} interval={0} tick={{ fontSize: 11 }} />
                <Tooltip formatter={(value) => [count(Number(value)), 'Locations']} />
                <Bar dataKey="locations" fill="#0f7c8c" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
          <figcaption className="muted small">Each location counts once, under the sector of its most common occupant.</figcaption>
        </figure>
      )}
      <div className="table-scroll">
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
      </div>
    </>
  );
}
