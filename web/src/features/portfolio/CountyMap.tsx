import { geoPath } from 'd3-geo';
import type { Feature, Geometry } from 'geojson';
import { useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import {
  ABSENT_COLOUR, CONNECTICUT, amount, classBounds, classColours, classOf, count, type MapUnit,
} from './figures';

// us-atlas's Albers USA files are projected with geoAlbersUsa().scale(1300).translate([487.5, 305]).
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

/**
 * The county shapes as SVG paths. us-atlas ships them in the npm package (no tiles, no CDN),
 * already projected to Albers USA (which leaves out Puerto Rico and the territories): no
 * projection work in the browser, only the paths, to one decimal (a tenth of a viewBox unit).
 */
async function buildShapes(): Promise<Shapes> {
  const topology = (await import('us-atlas/counties-albers-10m.json')).default as unknown as Topology<{
    counties: GeometryCollection<CountyProperties>;
    states: GeometryCollection<CountyProperties>;
  }>;
  const path = geoPath().digits(1);
  const states = new Map(
    topology.objects.states.geometries.map((state) => [String(state.id), (state.properties as CountyProperties | undefined)?.name ?? '']),
  );
  const counties: CountyShape[] = [];
  for (const county of feature(topology, topology.objects.counties).features as Feature<Geometry, CountyProperties>[]) {
    const d = path(county);
    if (!d) continue;
    const fips = String(county.id);
    const [x, y] = path.centroid(county);
    counties.push({ fips, name: county.properties.name, state: states.get(fips.slice(0, 2)) ?? '', d, centre: [x, y] });
  }
  const borders = path(mesh(topology, topology.objects.states, (a, b) => a !== b)) ?? '';
  return { counties, borders };
}

let shapesOnce: Promise<Shapes> | null = null;
let shapesBuilt: Shapes | null = null;

/** The shapes, built once per session; the page starts this before its summary arrives. */
export function loadCountyShapes(): Promise<Shapes> {
  if (!shapesOnce) {
    shapesOnce = buildShapes().then(
      (shapes) => (shapesBuilt = shapes),
      (error: unknown) => {
        shapesOnce = null; // the next visit tries again
        throw error;
      },
    );
  }
  return shapesOnce;
}

interface Props {
  units: Map<string, MapUnit>;
  measure: 'locations' | 'value';
  valueName: string | null;
  /** Called once the counties are drawn (or the map could not be). */
  onDrawn?: () => void;
}

function unitOf(fips: string, units: Map<string, MapUnit>): MapUnit | undefined {
  return units.get(fips.startsWith(CONNECTICUT) ? CONNECTICUT : fips);
}

/** Keys that move between the counties present on the map, and by how many. */
const STEPS: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

/**
 * A US county choropleth of the book: each county present is coloured and explained. The map is
 * one tab stop (a book may cover 1,359 counties): the arrow keys, Home and End move between its
 * counties; the county table after it is the keyboard's way through them all.
 */
export function CountyMap({ units, measure, valueName, onDrawn }: Props) {
  const [shapes, setShapes] = useState<Shapes | null>(shapesBuilt);
  const [failed, setFailed] = useState(false);
  const [active, setActive] = useState<CountyShape | null>(null);

  useEffect(() => {
    if (shapes) return;
    let live = true;
    loadCountyShapes().then((loaded) => live && setShapes(loaded)).catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [shapes]);

  const drawnOrFailed = shapes !== null || failed;
  useEffect(() => {
    if (drawnOrFailed) onDrawn?.();
  }, [drawnOrFailed, onDrawn]);

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
  const present = useMemo(() => drawn.filter((c) => unitOf(c.fips, units)).map((c) => c.fips), [drawn, units]);
  const [current, setCurrent] = useState<string | null>(null);
  // The one county in the tab order: the last one moved to, else the first present.
  const stop = current !== null && present.includes(current) ? current : present[0] ?? null;

  function move(event: KeyboardEvent<SVGSVGElement>) {
    if (stop === null) return;
    const at = present.indexOf(stop);
    let next: number;
    if (event.key in STEPS) next = Math.min(present.length - 1, Math.max(0, at + STEPS[event.key]!));
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = present.length - 1;
    else return;
    event.preventDefault();
    const fips = present[next]!;
    setCurrent(fips);
    event.currentTarget.querySelector<SVGPathElement>(`path[data-fips="${fips}"]`)?.focus();
  }

  if (failed) return <p className="muted" role="alert">The map could not be drawn. The county table below lists every county.</p>;
  if (!shapes) return <p className="muted">Drawing the map...</p>;
  return (
    <div className="county-map">
      <div className="county-map-frame">
        <svg
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="group"
          aria-label={`Map of US counties shaded by ${measure === 'value' ? valueName ?? 'value' : 'locations'}. One tab stop: the arrow keys move between the counties with locations; the table after the map lists them all.`}
          data-testid="county-map"
          onMouseLeave={() => setActive(null)}
          onKeyDown={move}
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
                tabIndex={county.fips === stop ? 0 : -1}
                onMouseEnter={() => setActive(county)}
                onFocus={() => {
                  setActive(county);
                  setCurrent(county.fips);
                }}
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
