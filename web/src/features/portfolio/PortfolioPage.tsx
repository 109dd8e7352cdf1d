import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { failureText } from '../../api/errors';
import type { PortfolioSummary } from '../../api/types';
import { PageSpinner, Spinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { FirstViewShown, useAfterPaint } from './afterMap';
import { CountyMap, loadCountyShapes } from './CountyMap';
import { CountyTable } from './CountyTable';
import { Histograms } from './Histograms';
import { OccupancyMix } from './OccupancyMix';
import { RiskiestTable } from './RiskiestTable';
import { TractPanel } from './TractPanel';
import { MATCH_LEVEL_NAMES, amount, count, mapUnits, orderedRatings, percent, ratingLabel } from './figures';
import { usePortfolioQuery } from './portfolioApi';
import { ScrollBox } from './ScrollBox';

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** /portfolio/{export}: a finished batch at a glance, summed on the server. */
export default function PortfolioPage() {
  const params = useParams();
  const filename = params.export ? safeDecode(params.export) : '';
  const [peril, setPeril] = useState('composite');
  const [valueColumn, setValueColumn] = useState('');
  const [measure, setMeasure] = useState<'locations' | 'value'>('locations');
  usePageTitle(filename ? `Portfolio: ${filename}` : 'Portfolio');
  const { data, error, isFetching } = usePortfolioQuery({ filename, peril, valueColumn }, { skip: !filename });
  // The county shapes load and turn into paths while the summary is on its way.
  useEffect(() => {
    loadCountyShapes().catch(() => undefined); // the map says so when it cannot draw
  }, []);

  const viewer = `/batch-export-detail/${encodeURIComponent(filename)}`;
  return (
    <div className="page portfolio-page">
      <header className="page-header result-header">
        <h1 className="break-all">Portfolio: {filename || 'no export chosen'}</h1>
        <div className="button-row">
          {filename && <Link to={viewer} className="btn btn-outline">Export viewer</Link>}
          <Link to="/data-processing" className="btn btn-outline">Back</Link>
        </div>
      </header>
      {!filename && <div className="error-panel" role="alert"><p>No export chosen.</p></div>}
      {filename && !data && !error && <PageSpinner label="Summing the portfolio..." />}
      {error && (
        <div className="error-panel" role="alert">
          <p>{failureText(error)}</p>
        </div>
      )}
      {data && !error && data.headline.rows === 0 && <p className="muted">This export has no rows.</p>}
      {data && !error && data.headline.rows > 0 && (
        <Summary
          data={data}
          filename={filename}
          peril={peril}
          onPeril={setPeril}
          valueColumn={valueColumn}
          onValueColumn={(column) => {
            setValueColumn(column);
            setMeasure(column ? 'value' : 'locations');
          }}
          measure={measure}
          onMeasure={setMeasure}
          updating={isFetching}
        />
      )}
    </div>
  );
}

interface SummaryProps {
  data: PortfolioSummary;
  filename: string;
  peril: string;
  onPeril: (peril: string) => void;
  valueColumn: string;
  onValueColumn: (column: string) => void;
  measure: 'locations' | 'value';
  onMeasure: (measure: 'locations' | 'value') => void;
  updating: boolean;
}

function Summary({ data, filename, peril, onPeril, valueColumn, onValueColumn, measure, onMeasure, updating }: SummaryProps) {
  const units = useMemo(() => mapUnits(data.counties), [data.counties]);
  const perilName = data.distributions.find((d) => d.peril === peril)?.name ?? peril;
  const valueName = data.value?.column ?? null;
  const connecticut = data.counties.some((c) => c.county_fips.startsWith('09'));
  const offMap = data.counties.filter((c) => /^(60|66|69|72|78)/.test(c.county_fips));
  // First the headline and the map; the charts and the county table in the frame after (issue #14).
  const [mapDrawn, setMapDrawn] = useState(false);
  const onMapDrawn = useCallback(() => setMapDrawn(true), []);
  const firstViewShown = useAfterPaint(mapDrawn);
  return (
    <FirstViewShown.Provider value={firstViewShown}>
      <section className="card portfolio-controls" aria-label="What to show">
        <label className="field-inline">
          <span>Peril</span>
          <select value={peril} onChange={(e) => onPeril(e.target.value)}>
            {data.distributions.map((d) => <option key={d.peril} value={d.peril}>{d.name}</option>)}
          </select>
        </label>
        <label className="field-inline">
          <span>Value column</span>
          <select value={valueColumn} onChange={(e) => onValueColumn(e.target.value)} disabled={data.value_columns.length === 0}>
            <option value="">None</option>
            {data.value_columns.map((column) => <option key={column} value={column}>{column}</option>)}
          </select>
        </label>
        <fieldset className="field-inline measure-choice">
          <legend>Colour the map by</legend>
          <label><input type="radio" name="measure" checked={measure === 'locations'} onChange={() => onMeasure('locations')} /> Locations</label>
          <label><input type="radio" name="measure" checked={measure === 'value'} disabled={!valueName} onChange={() => onMeasure('value')} /> Value</label>
        </fieldset>
        {updating && <Spinner size="sm" label="Updating..." />}
      </section>

      <Headline data={data} />

      <section className="card" aria-labelledby="distribution-title">
        <h2 id="distribution-title" className="card-title">Scores across the book: {perilName}</h2>
        <Histograms distributions={data.distributions} peril={peril} rows={data.headline.rows} />
      </section>

      {data.tracts && data.tracts.locations > 0 && <TractPanel tracts={data.tracts} rows={data.headline.rows} peril={peril} />}

      <section className="card" aria-labelledby="map-title">
        <h2 id="map-title" className="card-title">Where the locations are</h2>
        <a className="skip-map" href="#county-table-title">Skip the map to the county table</a>
        <CountyMap units={units} measure={measure === 'value' && valueName ? 'value' : 'locations'} valueName={valueName}
          onDrawn={onMapDrawn} />
        <p className="muted small">
          County shapes: US Census Bureau cartographic boundaries (us-atlas), drawn in your browser.
          {connecticut && ' Connecticut: the scores are for its 9 planning regions (NRI v1.20), which do not match the 8 former counties on the map, so the state is shaded as one and its regions are listed in the table.'}
          {offMap.length > 0 && ` Not on the map: ${offMap.map((c) => c.county_name ?? c.county_fips).join(', ')} (listed in the table).`}
        </p>
        <h3 id="county-table-title" className="subtitle" tabIndex={-1}>Locations per county ({count(data.counties.length)})</h3>
        {firstViewShown ? <CountyTable counties={data.counties} valueName={valueName} /> : <p className="muted">Listing the counties...</p>}
      </section>

      {data.value && <ValueByRating data={data} peril={peril} perilName={perilName} />}

      <section className="card" aria-labelledby="riskiest-title">
        <h2 id="riskiest-title" className="card-title">The {data.riskiest.length} riskiest locations by {perilName}</h2>
        <RiskiestTable filename={filename} riskiest={data.riskiest} perilName={perilName} />
      </section>

      <section className="card" aria-labelledby="occupancy-title">
        <h2 id="occupancy-title" className="card-title">Occupancy mix (NAICS sectors)</h2>
        <OccupancyMix sectors={data.sectors} perilName={perilName} />
      </section>
    </FirstViewShown.Provider>
  );
}

function Headline({ data }: { data: PortfolioSummary }) {
  const h = data.headline;
  const figures: [string, number, string | null][] = [
    ['Rows', h.rows, null],
    ['Located', h.located, percent(h.located, h.rows)],
    ['At ZIP level only', h.by_status?.['answered at ZIP level'] ?? 0, percent(h.by_status?.['answered at ZIP level'] ?? 0, h.rows)],
    ['Low confidence', h.low_confidence, percent(h.low_confidence, h.rows)],
    ['Not located', h.not_located, percent(h.not_located, h.rows)],
    ['With occupants', h.with_occupants, percent(h.with_occupants, h.rows)],
    ['Occupants not covered', h.occupants_not_covered, percent(h.occupants_not_covered, h.rows)],
    ['With a building record', h.with_building_record, percent(h.with_building_record, h.rows)],
  ];
  return (
    <section className="card" aria-labelledby="headline-title">
      <h2 id="headline-title" className="card-title">The book</h2>
      <ul className="headline-cards">
        {figures.map(([label, value, share]) => (
          <li key={label} className="headline-card">
            <span className="stat-value">{count(value)}</span>
            <span className="stat-label">{label}{share ? ` (${share})` : ''}</span>
          </li>
        ))}
      </ul>
      {h.located > 0 && (
        <p className="small">
          Located:{' '}
          {Object.entries(h.located_by_match_level)
            .map(([level, n]) => `${MATCH_LEVEL_NAMES[level] ?? level} ${count(n)}`)
            .join(' · ')}
        </p>
      )}
    </section>
  );
}

function ValueByRating({ data, peril, perilName }: { data: PortfolioSummary; peril: string; perilName: string }) {
  const value = data.value!;
  const sums = value.by_rating.find((v) => v.peril === peril)?.ratings ?? {};
  return (
    <section className="card" aria-labelledby="value-title">
      <h2 id="value-title" className="card-title">{value.column} by {perilName} rating</h2>
      <p className="small">
        Total {amount(value.total)} from {count(value.parsed)} row(s).
        {value.unparsed > 0 && ` ${count(value.unparsed)} cell(s) are not numbers and were left out.`}
        {value.blank > 0 && ` ${count(value.blank)} are empty.`}
      </p>
      <ScrollBox label={`${value.column} by rating`}>
        <table className="table table-compact" aria-label={`${value.column} by ${perilName} rating`}>
          <thead>
            <tr><th scope="col">Rating</th><th scope="col">{value.column}</th><th scope="col">Share</th></tr>
          </thead>
          <tbody>
            {orderedRatings(Object.keys(sums)).map((rating) => (
              <tr key={rating}>
                <th scope="row">{ratingLabel(rating)}</th>
                <td>{amount(sums[rating]!)}</td>
                <td>{percent(sums[rating]!, value.total)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}
