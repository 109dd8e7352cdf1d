import { geoAlbersUsa, geoPath } from 'd3-geo';
import type { Feature, Geometry } from 'geojson';
import { useEffect, useMemo, useState } from 'react';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import {
  ABSENT_COLOUR, CONNECTICUT, amount, classBounds, classColours, classOf, count, type MapUnit,
} from './figures';

const WIDTH = 975;
const HEIGHT = 610;

interface CountyShape {
  fips: string;
  name: string;
  state: string;
  d: string;
  centre: [number, number];
}

interface Shapes {
  counties: CountyShape[];
  borders: string;
}

type CountyProperties = { name: string };

/** The county shapes, projected once: us-atlas ships them in the npm package (no tiles, no CDN). */
async function loadShapes(): Promise<Shapes> {
  const topology = (await import('us-atlas/counties-10m.json')).default as unknown as Topology<{
    counties: GeometryCollection<CountyProperties>;
    states: GeometryCollection<CountyProperties>;
  }>;
  const path = geoPath(geoAlbersUsa().scale(1300).translate([WIDTH / 2, HEIGHT / 2]));
  const states = new Map(
    (feature(topology, topology.objects.states).features as Feature<Geometry, CountyProperties>[]).map((f) => [
      String(f.id), f.properties.name,
    ]),
  );
  const counties: CountyShape[] = [];
  for (const county of feature(topology, topology.objects.counties).features as Feature<Geometry, CountyProperties>[]) {
    const d = path(county);
    // Albers USA draws the 50 states and DC; Puerto Rico and the territories have no place on it.
    if (!d) continue;
    const fips = String(county.id);
    const [x, y] = path.centroid(county);
    counties.push({ fips, name: county.properties.name, state: states.get(fips.slice(0, 2)) ?? '', d, centre: [x, y] });
  }
  const borders = path(mesh(topology, topology.objects.states, (a, b) => a !== b)) ?? '';
  return { counties, borders };
}

interface Props {
  units: Map<string, MapUnit>;
  measure: 'locations' | 'value';
  valueName: string | null;
}

function unitOf(fips: string, units: Map<string, MapUnit>): MapUnit | undefined {
  return units.get(fips.startsWith(CONNECTICUT) ? CONNECTICUT : fips);
}

/** A US county choropleth of the book: each county present is coloured, focusable and explained. */
export function CountyMap({ units, measure, valueName }: Props) {
  const [shapes, setShapes] = useState<Shapes | null>(null);
  const [failed, setFailed] = useState(false);
  const [active, setActive] = useState<CountyShape | null>(null);

  useEffect(() => {
    let live = true;
    loadShapes().then((loaded) => live && setShapes(loaded)).catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, []);

  const figureOf = (unit: MapUnit) => (measure === 'value' ? unit.value ?? 0 : unit.locations);
  const describe = (unit: MapUnit) =>
    measure === 'value'
      ? `${amount(unit.value ?? 0)} ${valueName ?? 'value'} (${count(unit.locations)} locations)`
      : `${count(unit.locations)} location${unit.locations === 1 ? '' : 's'}`;
  const bounds = useMemo(
    () => classBounds([...units.values()].map((u) => (measure === 'value' ? u.value ?? 0 : u.locations))),
    [units, measure],
  );
  const colours = classColours(bounds);
  const drawn = shapes?.counties ?? [];
  const activeUnit = active ? unitOf(active.fips, units) : undefined;

  if (failed) return <p className="muted" role="alert">The map could not be drawn. The county table below lists every county.</p>;
  if (!shapes) return <p className="muted">Drawing the map...</p>;
  return (
    <div className="county-map">
      <div className="county-map-frame">
        <svg
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="group"
          aria-label={`Map of US counties shaded by ${measure === 'value' ? valueName ?? 'value' : 'locations'}. Counties with locations can be focused; the table after the map lists them all.`}
          data-testid="county-map"
          onMouseLeave={() => setActive(null)}
        >
          {drawn.map((county) => {
            const unit = unitOf(county.fips, units);
            const fill = unit ? colours[classOf(figureOf(unit), bounds)] : ABSENT_COLOUR;
            return unit ? (
              <path
                key={county.fips}
                d={county.d}
                fill={fill}
                className="county county-present"
                data-fips={county.fips}
                role="img"
                aria-label={`${unit.key === CONNECTICUT ? unit.label : `${county.name}, ${county.state}`}: ${describe(unit)}`}
                tabIndex={0}
                onMouseEnter={() => setActive(county)}
                onFocus={() => setActive(county)}
                onBlur={() => setActive(null)}
              />
            ) : (
              <path key={county.fips} d={county.d} fill={fill} className="county" data-fips={county.fips}
                aria-hidden="true" onMouseEnter={() => setActive(county)} />
            );
          })}
          <path d={shapes.borders} className="state-borders" aria-hidden="true" />
        </svg>
        {active && (
          <div
            className="county-tooltip"
            role="tooltip"
            style={{
              left: `${(active.centre[0] / WIDTH) * 100}%`,
              top: `${(active.centre[1] / HEIGHT) * 100}%`,
            }}
          >
            <strong>{activeUnit?.key === CONNECTICUT ? activeUnit.label : `${active.name}, ${active.state}`}</strong>
            <span>{activeUnit ? describe(activeUnit) : 'No locations'}</span>
          </div>
        )}
      </div>
      <Legend bounds={bounds} colours={colours} format={measure === 'value' ? amount : count}
        title={measure === 'value' ? `${valueName ?? 'Value'} per county` : 'Locations per county'} />
    </div>
  );
}

function Legend({ bounds, colours, format, title }: {
  bounds: number[]; colours: string[]; format: (n: number) => string; title: string;
}) {
  return (
    <div className="map-legend" aria-label="Map legend" role="group">
      <span className="map-legend-title">{title}</span>
      <ul>
        <li><span className="swatch" style={{ background: ABSENT_COLOUR }} aria-hidden="true" /> none</li>
        {bounds.map((bound, i) => {
          const from = i === 0 ? null : bounds[i - 1]!;
          // Counts are whole: the class after '1-5' starts at 6.
          const whole = format === count;
          const start = from === null ? (whole ? 1 : null) : whole ? from + 1 : from;
          const text = start === null ? `up to ${format(bound)}` : start === bound ? format(bound) : `${format(start)}–${format(bound)}`;
          return (
            <li key={bound}>
              <span className="swatch" style={{ background: colours[i] }} aria-hidden="true" /> {text}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
