import { useState } from 'react';
import { Link } from 'react-router-dom';
import { failureText } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';
import { exportGroupId } from '../../lib/exports/groups';
import { parseAddressText } from '../../lib/resultView';
import { NOT_COVERED } from '../../lib/occupantCoverage';
import { NO_FILTER, useExportRowsQuery, type ExportRow, type ExportRowsPage, type FilterChoice, type RowFilter } from './exportRowsApi';
import { StretchNav, stretchOf } from './StretchNav';
import { BuildingDetails, TOP3_TOOLTIP, TotalScore } from './CardParts';
import { VirtualGroups } from './VirtualGroups';

/** Rows asked for at a time: a screen's worth and more, small enough to answer at once. */
export const ROWS_PER_PAGE = 100;
const ESTIMATED_ROW_PX = 400; // a card measured about 395 px at 1280 px wide

const MATCH_LEVELS: Record<string, string> = {
  building: 'Building record',
  census_exact: 'Census geocoder',
  place: "The city's point",
  zip_centroid: 'ZIP code centre',
  none: 'No map point',
  unknown: 'Unknown (older export)',
};

const count = (value: number) => value.toLocaleString('en-US');

interface Props {
  filename: string;
  /** The first page of the unfiltered rows, already loaded by the page. */
  first: ExportRowsPage;
}

/**
 * An export's rows paged from the server as they scroll into view (never the whole file), filtered
 * there by match level, county and rating.
 */
export function ServerRows({ filename, first }: Props) {
  const [filter, setFilter] = useState<RowFilter>(NO_FILTER);
  const [stretch, setStretch] = useState(0);
  const filtered = filter !== NO_FILTER;
  const { currentData, data, error, isFetching } = useExportRowsQuery(
    { filename, ...filter, offset: 0, limit: ROWS_PER_PAGE },
    { skip: !filtered },
  );
  // Unfiltered, the page's own first page; filtered, the filter's (the last one while it loads).
  const shown = filtered ? currentData : first;
  const choices = (filtered ? data : first)?.filters ?? first.filters;
  const matching = shown?.total_matching ?? null;
  const { current, start, size, many } = stretchOf(matching ?? 0, stretch);

  function changeFilter(next: RowFilter) {
    setFilter(Object.values(next).some(Boolean) ? next : NO_FILTER);
    setStretch(0);
  }
  function goToStretch(next: number) {
    setStretch(next);
    window.scrollTo(0, 0);
  }

  return (
    <>
      <p className="muted">Displaying {count(first.total_rows)} row(s) from {filename}</p>
      <RowFilters choices={choices} filter={filter} onFilter={changeFilter} matching={matching} total={first.total_rows}
        busy={filtered && isFetching} failed={filtered && error !== undefined} />
      {filtered && error !== undefined && !isFetching && <Banner kind="error">{failureText(error)}</Banner>}
      {matching === 0 && <p className="muted">No row matches these filters.</p>}
      {matching !== null && matching > 0 && (
        <>
          {many && <StretchNav place="top" current={current} total={matching} noun="Rows" onGo={goToStretch} />}
          <VirtualGroups
            key={`${JSON.stringify(filter)}-${current}`}
            count={size}
            estimate={ESTIMATED_ROW_PX}
            label="Export rows"
            render={(position) => <RowSlot filename={filename} filter={filter} position={start + position} />}
          />
          {many && <StretchNav place="bottom" current={current} total={matching} noun="Rows" onGo={goToStretch} />}
        </>
      )}
    </>
  );
}

interface FilterProps {
  choices: ExportRowsPage['filters'];
  filter: RowFilter;
  onFilter: (filter: RowFilter) => void;
  matching: number | null;
  total: number;
  busy: boolean;
  failed: boolean;
}

function RowFilters({ choices, filter, onFilter, matching, total, busy, failed }: FilterProps) {
  const select = (key: keyof RowFilter, label: string, options: FilterChoice[], name: (choice: FilterChoice) => string) => (
    <label className="field-inline">
      <span>{label}</span>
      <select value={filter[key]} onChange={(e) => onFilter({ ...filter, [key]: e.target.value })}>
        <option value="">All</option>
        {options.map((choice) => <option key={choice.value} value={choice.value}>{name(choice)} ({count(choice.rows)})</option>)}
      </select>
    </label>
  );
  return (
    <section className="group-filters" aria-label="Filter rows">
      {select('match_level', 'Match level', choices.match_levels, (c) => MATCH_LEVELS[c.value] ?? c.label)}
      {select('county', 'County', choices.counties, (c) => c.label)}
      {select('rating', 'Composite rating', choices.ratings, (c) => (c.value === 'no rating' ? 'Not scored (no rating in the row)' : c.label))}
      {Object.values(filter).some(Boolean) && (
        <button type="button" className="btn btn-outline btn-sm" onClick={() => onFilter(NO_FILTER)}>Clear filters</button>
      )}
      <p className="muted small" role="status">
        {busy ? <Spinner size="sm" label="Filtering rows..." />
          : failed || matching === null ? 'These filters could not be applied.' : `Showing ${count(matching)} of ${count(total)} row(s).`}
      </p>
    </section>
  );
}

/** The row at `position` among the matching rows: its page is asked for once, by whichever row shows first. */
function RowSlot({ filename, filter, position }: { filename: string; filter: RowFilter; position: number }) {
  const offset = Math.floor(position / ROWS_PER_PAGE) * ROWS_PER_PAGE;
  const { currentData, error, refetch } = useExportRowsQuery({ filename, ...filter, offset, limit: ROWS_PER_PAGE });
  const row = currentData?.rows[position - offset];
  if (row) return <RowCard row={row} filename={filename} />;
  return (
    <article className="card export-group row-placeholder" aria-busy={!error} aria-label={`Row ${count(position + 1)}`}>
      {error ? (
        <p>
          {failureText(error)}{' '}
          <button type="button" className="btn btn-outline btn-sm" onClick={() => void refetch()}>Try again</button>
        </p>
      ) : <Spinner size="sm" label={`Loading rows ${count(offset + 1)}–${count(offset + ROWS_PER_PAGE)}...`} />}
    </article>
  );
}

function countyText(row: ExportRow): string {
  if (!row.county_fips) return 'Not located';
  return `${row.county_name ?? row.county_fips}${row.county_state ? `, ${row.county_state}` : ''} (${row.county_fips})`;
}

/**
 * A row's occupant count: 0 only where an occupant source covers the address and found none.
 * Null is unknown: the row was not located, or no occupant source covers it ('Not covered').
 */
export function occupantsText(row: Pick<ExportRow, 'occupant_count' | 'status' | 'county_fips'>): string {
  if (row.occupant_count !== null) return count(row.occupant_count);
  return row.status === 'not located' || !row.county_fips ? 'Unknown (not located)' : NOT_COVERED;
}

function RowCard({ row, filename }: { row: ExportRow; filename: string }) {
  const text = parseAddressText(row.address);
  const facts: [string, string][] = [
    ['Match level', row.match_level ? (MATCH_LEVELS[row.match_level] ?? row.match_level) : 'Unknown'],
    ['County', countyText(row)],
    ['Occupants', occupantsText(row)],
    // Unknown occupants have unknown codes too: said as the count is, not as an empty dash.
    ['NAICS', row.naics_codes || (row.occupant_count === null ? occupantsText(row) : '—')],
  ];
  return (
    <article className="card export-group" aria-label={text.address}>
      <h2 className="card-title">
        <Link to={`/search-result/${encodeURIComponent(exportGroupId(filename, row.index))}`}>{text.address}</Link>
      </h2>
      <p className="muted small">
        {row.row === null ? `Row ${count(row.index + 1)}` : `Line ${count(row.row)} of the upload`}
        {row.status ? ` · ${row.status}` : ''}
        {row.low_confidence && <span className="status-badge status-other occupant-status-inline">County uncertain</span>}
      </p>
      <div className="result-columns">
        <BuildingDetails details={text.details} />
        <section>
          <h3 className="subtitle">Risk Analysis</h3>
          <p>
            <TotalScore score={row.total_score} />
            {row.rating && <span className="muted"> ({row.rating})</span>}
          </p>
          <p title={TOP3_TOOLTIP}>Top 3 Risks</p>
          <p className="top3 small">{row.top_3 ?? '—'}</p>
          <dl className="kv-grid small export-row-facts">
            {facts.map(([key, value]) => <div key={key}><dt>{key}</dt><dd>{value}</dd></div>)}
          </dl>
        </section>
      </div>
      {row.message && <p className="muted small">{row.message}</p>}
    </article>
  );
}
