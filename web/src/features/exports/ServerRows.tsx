import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { failureText } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';
import { display } from '../../lib/exports/groups';
import { exportGroupId } from '../../lib/exports/groups';
import { HAZARDS, parseAddressText } from '../../lib/resultView';
import { NOT_COVERED } from '../../lib/occupantCoverage';
import {
  NO_FILTER, isFiltered, useExportRowsQuery, type ExportRow, type ExportRowsPage, type FilterChoice, type RowFilter,
} from './exportRowsApi';
import { StretchNav, stretchOf } from './StretchNav';
import { TOP3_TOOLTIP, TotalScore } from './CardParts';
import { VirtualGroups } from './VirtualGroups';
import './viewer.css';

/** Rows asked for at a time: a screen's worth and more, small enough to answer at once. */
export const ROWS_PER_PAGE = 100;
const ESTIMATED_ROW_PX = 200; // a compact card measured about 190 px at 1280 px wide

const MATCH_LEVELS: Record<string, string> = {
  building: 'Building record',
  census_exact: 'Census geocoder',
  place: "The city's point",
  zip_centroid: 'ZIP code centre',
  none: 'No map point',
  unknown: 'Unknown (older export)',
};

/** What the rows can be sorted by: the composite score, then each hazard's (the server's SORT_COLUMNS). */
export const SORTS: { value: string; label: string }[] = [
  { value: 'Total_Score', label: 'Total score' },
  ...HAZARDS.map((hazard) => ({ value: `${hazard.code}_Score`, label: `${hazard.name} score` })),
];
const sortLabel = (value: string) => SORTS.find((sort) => sort.value === value)?.label ?? value;

const count = (value: number) => value.toLocaleString('en-US');

interface Props {
  filename: string;
  /** The first page of the unfiltered rows, already loaded by the page. */
  first: ExportRowsPage;
}

/**
 * An export's rows paged from the server as they scroll into view (never the whole file), filtered
 * there by match level, county, state, rating, status, county confidence and a text in the address,
 * and sorted there by any score.
 */
export function ServerRows({ filename, first }: Props) {
  const [filter, setFilter] = useState<RowFilter>(NO_FILTER);
  const [stretch, setStretch] = useState(0);
  const filtered = isFiltered(filter);
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
    setFilter(isFiltered(next) ? next : NO_FILTER);
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

const CHOICE_NAMES: Partial<Record<keyof RowFilter, (choice: FilterChoice) => string>> = {
  match_level: (c) => MATCH_LEVELS[c.value] ?? c.label,
  rating: (c) => (c.value === 'no rating' ? 'Not scored (no rating in the row)' : c.label),
};

function RowFilters({ choices, filter, onFilter, matching, total, busy, failed }: FilterProps) {
  const [search, setSearch] = useState(filter.search);
  useEffect(() => setSearch(filter.search), [filter.search]);
  const select = (key: keyof RowFilter, label: string, options: FilterChoice[] | undefined) => (
    <label className="field-inline">
      <span>{label}</span>
      <select value={filter[key]} onChange={(e) => onFilter({ ...filter, [key]: e.target.value })}>
        <option value="">All</option>
        {(options ?? []).map((choice) => (
          <option key={choice.value} value={choice.value}>{(CHOICE_NAMES[key] ?? ((c: FilterChoice) => c.label))(choice)} ({count(choice.rows)})</option>
        ))}
      </select>
    </label>
  );
  function submitSearch(event: FormEvent) {
    event.preventDefault();
    onFilter({ ...filter, search: search.trim() });
  }
  return (
    <section className="group-filters viewer-filters" aria-label="Filter rows">
      <form className="viewer-search" role="search" aria-label="Search the addresses" onSubmit={submitSearch}>
        <label className="field-inline">
          <span>Address contains</span>
          <input type="search" value={search} maxLength={200} placeholder="e.g. 5th Ave, Seattle"
            onChange={(e) => {
              setSearch(e.target.value);
              if (e.target.value === '' && filter.search) onFilter({ ...filter, search: '' });
            }} />
        </label>
        <button type="submit" className="btn btn-outline btn-sm">Search</button>
      </form>
      {select('match_level', 'Match level', choices.match_levels)}
      {select('county', 'County', choices.counties)}
      {select('state', 'State', choices.states)}
      {select('rating', 'Composite rating', choices.ratings)}
      {select('status', 'Status', choices.statuses)}
      {select('low_confidence', 'County confidence', choices.low_confidence)}
      <label className="field-inline">
        <span>Sort by</span>
        <select value={filter.sort} onChange={(e) => onFilter({ ...filter, sort: e.target.value })}>
          <option value="">Upload order</option>
          {SORTS.map((sort) => <option key={sort.value} value={sort.value}>{sort.label}</option>)}
        </select>
      </label>
      {filter.sort && (
        <label className="field-inline">
          <span>Order</span>
          <select value={filter.order} onChange={(e) => onFilter({ ...filter, order: e.target.value === 'asc' ? 'asc' : 'desc' })}>
            <option value="desc">Highest first</option>
            <option value="asc">Lowest first</option>
          </select>
        </label>
      )}
      {isFiltered(filter) && (
        <button type="button" className="btn btn-outline btn-sm" onClick={() => onFilter(NO_FILTER)}>Clear filters</button>
      )}
      <p className="muted small viewer-count" role="status">
        {busy ? <Spinner size="sm" label="Filtering rows..." />
          : failed || matching === null ? 'These filters could not be applied.' : `Showing ${count(matching)} of ${count(total)} row(s).`}
        {!busy && filter.sort && matching !== null && !failed ? ` Sorted by ${sortLabel(filter.sort).toLowerCase()}, ${filter.order === 'asc' ? 'lowest' : 'highest'} first; unknown scores last.` : ''}
      </p>
    </section>
  );
}

/** The row at `position` among the matching rows: its page is asked for once, by whichever row shows first. */
function RowSlot({ filename, filter, position }: { filename: string; filter: RowFilter; position: number }) {
  const offset = Math.floor(position / ROWS_PER_PAGE) * ROWS_PER_PAGE;
  const { currentData, error, refetch } = useExportRowsQuery({ filename, ...filter, offset, limit: ROWS_PER_PAGE });
  const row = currentData?.rows[position - offset];
  if (row) return <RowCard row={row} filename={filename} columns={currentData?.columns ?? []} sort={filter.sort} />;
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

/** Key-value pairs on as few lines as fit: the compact card's facts, building and the user's columns. */
function Pairs({ pairs, label, className = '' }: { pairs: [string, string][]; label?: string; className?: string }) {
  if (pairs.length === 0) return null;
  return (
    <dl className={`kv-inline small ${className}`} aria-label={label}>
      {pairs.map(([key, value], at) => <div key={`${at}-${key}`}><dt>{key}</dt><dd>{value}</dd></div>)}
    </dl>
  );
}

function RowCard({ row, filename, columns, sort }: { row: ExportRow; filename: string; columns: string[]; sort: string }) {
  const text = parseAddressText(row.address);
  const facts: [string, string][] = [
    ['Match level', row.match_level ? (MATCH_LEVELS[row.match_level] ?? row.match_level) : 'Unknown'],
    ['County', countyText(row)],
    ['Occupants', occupantsText(row)],
    // Unknown occupants have unknown codes too: said as the count is, not as an empty dash.
    ['NAICS', row.naics_codes || (row.occupant_count === null ? occupantsText(row) : '—')],
  ];
  const building = text.details.map(([key, value]): [string, string] => [key, value === 'Unknown' ? '—' : display(value)]);
  const own = columns.map((name, at): [string, string] => [name || `Column ${at + 1}`, row.values[at] || '—']);
  return (
    <article className="card export-group export-row" aria-label={text.address}>
      <h2 className="card-title">
        <Link to={`/search-result/${encodeURIComponent(exportGroupId(filename, row.index))}`}>{text.address}</Link>
      </h2>
      <p className="muted small export-row-line">
        {row.row === null ? `Row ${count(row.index + 1)}` : `Line ${count(row.row)} of the upload`}
        {row.status ? ` · ${row.status}` : ''}
        {row.low_confidence && <span className="status-badge status-other occupant-status-inline">County uncertain</span>}
      </p>
      <p className="export-row-score">
        <TotalScore score={row.total_score} />
        {row.rating && <span className="muted"> ({row.rating})</span>}
        {sort && sort !== 'Total_Score' && (
          <span className="export-row-sorted"> · {sortLabel(sort)}: <strong>{row.sort_score === null ? '—' : row.sort_score.toFixed(2)}</strong></span>
        )}
      </p>
      <p className="small export-row-top3"><span className="muted" title={TOP3_TOOLTIP}>Top 3 Risks: </span>{row.top_3 ?? '—'}</p>
      <Pairs pairs={facts} className="export-row-facts" />
      <Pairs pairs={own} label="Your columns" className="export-row-own" />
      <Pairs pairs={building} label="Building details" className="export-row-building" />
      {row.message && <p className="muted small export-row-message">{row.message}</p>}
    </article>
  );
}
