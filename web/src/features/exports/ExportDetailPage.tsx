import { useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useListExportedFilesQuery } from '../../api/api';
import { Banner } from '../../components/Banner';
import { ExportDownloads, downloadErrorText } from '../../components/ExportDownloads';
import { CLIENT_SUPPLIED_LABEL, CLIENT_SUPPLIED_NOTE, ClientSuppliedBadge } from '../../components/ClientSuppliedBadge';
import { StatusBadge } from '../../components/StatusBadge';
import { PageSpinner, Spinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { useDownload } from '../../lib/download';
import { useExportFile } from '../../lib/exports/exportFile';
import { display, exportGroupId, groupNavState, type AddressGroup } from '../../lib/exports/groups';
import { useExportDetails } from '../../lib/exports/detailed';
import { NO_FILTER, filterOptions, filteredIndices, type GroupFilter } from './groupFilters';
import { VirtualGroups } from './VirtualGroups';

// A browser caps an element's height near 33 million px: 100,000 cards of ~350 px would pass it,
// so the groups scroll in stretches of 20,000 (a few million px), one after the other.
const GROUPS_PER_STRETCH = 20_000;

const TOTAL_TOOLTIP = 'Composite of the geo peril scores for all 18 disasters (FEMA National Risk Index).';
const TOP3_TOOLTIP = 'Top three disaster geo peril';

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** /batch-export-detail/{filename}: an export's address groups, scrolled and filtered, and its download. */
export default function ExportDetailPage() {
  const params = useParams();
  const filename = params.filename ? safeDecode(params.filename) : '';
  const { load } = useExportFile(filename || null);
  const { busy: preparing, error: downloadError, download } = useDownload();
  const [started, setStarted] = useState(false);
  const [filtering, setFiltering] = useState(false);
  const [filter, setFilter] = useState<GroupFilter>(NO_FILTER);
  const [stretch, setStretch] = useState(0);
  const { details, loading: detailsLoading, error: detailsError } = useExportDetails(filename, filtering);
  usePageTitle(filename ? `Export: ${filename}` : 'Export');
  // Where the rows came from is on the history's entry for this file.
  const { clientSupplied } = useListExportedFilesQuery(undefined, {
    selectFromResult: ({ data }) => ({ clientSupplied: data?.some((file) => file.name === filename && file.source === 'client') ?? false }),
  });

  useEffect(() => {
    if (!started) return undefined;
    const timer = setTimeout(() => setStarted(false), 3000);
    return () => clearTimeout(timer);
  }, [started]);

  const groupCount = load.state === 'loaded' ? load.groups.length : 0;
  const shown = useMemo(() => filteredIndices(groupCount, details, filter), [groupCount, details, filter]);
  const stretches = Math.ceil(shown.length / GROUPS_PER_STRETCH);
  const current = Math.min(stretch, Math.max(0, stretches - 1));
  const inStretch = useMemo(
    () => shown.slice(current * GROUPS_PER_STRETCH, (current + 1) * GROUPS_PER_STRETCH),
    [shown, current],
  );
  function goToStretch(next: number) {
    setStretch(next);
    window.scrollTo(0, 0);
  }

  if (!filename) {
    return (
      <div className="page">
        <div className="error-panel" role="alert"><p>No filename provided.</p></div>
      </div>
    );
  }

  async function downloadCsv() {
    setStarted(false);
    setStarted(await download(`/api/download/${encodeURIComponent(filename)}`, filename));
  }

  return (
    <div className="page">
      <header className="page-header result-header">
        <h1 className="break-all">Export: {filename} {clientSupplied && <ClientSuppliedBadge />}</h1>
        <div className="button-row">
          <button type="button" className="btn btn-primary" onClick={downloadCsv}
            disabled={load.state === 'loading' || preparing}>
            {preparing ? <Spinner size="sm" label="Preparing..." /> : 'Download CSV'}
          </button>
          {!clientSupplied && (
            <Link to={`/portfolio/${encodeURIComponent(filename)}`} className="btn btn-outline">Portfolio</Link>
          )}
          <Link to="/data-processing" className="btn btn-outline">Back</Link>
        </div>
      </header>
      <ExportDownloads filename={filename} disabled={load.state === 'loading'} />
      {clientSupplied && (
        <Banner kind="warning">
          <strong>{CLIENT_SUPPLIED_LABEL}.</strong> {CLIENT_SUPPLIED_NOTE} Check them against a PerilScope batch before relying on them.
        </Banner>
      )}
      {downloadError !== null && <Banner kind="error">{downloadErrorText(downloadError)}</Banner>}
      {started && <Banner kind="info">Download started.</Banner>}
      {load.state === 'loading' && <PageSpinner label="Loading file content..." />}
      {load.state === 'error' && (
        <div className="error-panel" role="alert">
          <p>{load.message}</p>
          {load.unreadable && <p>The file itself is kept: use Download CSV above to save it.</p>}
        </div>
      )}
      {load.state === 'loaded' && load.groups.length === 0 && <p className="muted">The exported file is empty.</p>}
      {load.state === 'loaded' && load.groups.length > 0 && (
        <>
          {load.dropped > 0 && <Banner kind="warning">{load.dropped} row(s) before the first address were left out.</Banner>}
          <p className="muted">Displaying {load.groups.length} address group(s) from {filename}</p>
          {!clientSupplied && (
            <GroupFilters
              filtering={filtering}
              onStart={() => setFiltering(true)}
              details={details}
              loading={detailsLoading}
              failed={Boolean(detailsError)}
              filter={filter}
              onFilter={(next) => {
                setFilter(next);
                setStretch(0);
              }}
              shown={shown.length}
              total={load.groups.length}
            />
          )}
          {shown.length === 0 ? (
            <p className="muted">No address group matches these filters.</p>
          ) : (
            <>
              {stretches > 1 && <StretchNav place="top" current={current} stretches={stretches} shown={shown.length} onGo={goToStretch} />}
              <VirtualGroups
                key={current}
                count={inStretch.length}
                label="Address groups"
                render={(position) => {
                  const index = inStretch[position]!;
                  return <GroupCard group={load.groups[index]!} filename={filename} index={index} />;
                }}
              />
              {stretches > 1 && <StretchNav place="bottom" current={current} stretches={stretches} shown={shown.length} onGo={goToStretch} />}
            </>
          )}
        </>
      )}
    </div>
  );
}

interface StretchNavProps {
  place: 'top' | 'bottom';
  current: number;
  stretches: number;
  shown: number;
  onGo: (stretch: number) => void;
}

function StretchNav({ place, current, stretches, shown, onGo }: StretchNavProps) {
  const first = current * GROUPS_PER_STRETCH + 1;
  const last = Math.min(shown, (current + 1) * GROUPS_PER_STRETCH);
  return (
    <nav className="button-row pager" aria-label={`Address group stretches (${place})`}>
      <button type="button" className="btn btn-outline btn-sm" disabled={current === 0} onClick={() => onGo(current - 1)}>Previous groups</button>
      <span>Groups {first.toLocaleString('en-US')}–{last.toLocaleString('en-US')} of {shown.toLocaleString('en-US')}</span>
      <button type="button" className="btn btn-outline btn-sm" disabled={current + 1 >= stretches} onClick={() => onGo(current + 1)}>Next groups</button>
    </nav>
  );
}

interface FilterProps {
  filtering: boolean;
  onStart: () => void;
  details: ReturnType<typeof useExportDetails>['details'];
  loading: boolean;
  failed: boolean;
  filter: GroupFilter;
  onFilter: (filter: GroupFilter) => void;
  shown: number;
  total: number;
}

/** Filters by match level, county and rating: they read the detailed export, fetched when asked for. */
function GroupFilters({ filtering, onStart, details, loading, failed, filter, onFilter, shown, total }: FilterProps) {
  const options = useMemo(() => (details ? filterOptions(details) : null), [details]);
  if (!filtering) {
    return (
      <div className="button-row">
        <button type="button" className="btn btn-outline btn-sm" onClick={onStart}>Filter by match level, county or rating</button>
      </div>
    );
  }
  if (loading) return <Spinner size="sm" label="Loading the detailed export for the filters..." />;
  if (failed || !options) return <Banner kind="warning">Filters need the detailed export, which this export does not have.</Banner>;
  const select = (key: keyof GroupFilter, label: string, choices: { value: string; label: string }[]) => (
    <label className="field-inline">
      <span>{label}</span>
      <select value={filter[key]} onChange={(e) => onFilter({ ...filter, [key]: e.target.value })}>
        <option value="">All</option>
        {choices.map((choice) => <option key={choice.value} value={choice.value}>{choice.label}</option>)}
      </select>
    </label>
  );
  return (
    <section className="group-filters" aria-label="Filter address groups">
      {select('matchLevel', 'Match level', options.matchLevels.map((v) => ({ value: v, label: v })))}
      {select('county', 'County', options.counties.map((c) => ({ value: c.fips, label: c.label })))}
      {select('rating', 'Composite rating', options.ratings.map((v) => ({ value: v, label: v })))}
      <p className="muted small" role="status">Showing {shown} of {total} address group(s).</p>
    </section>
  );
}

function GroupCard({ group, filename, index }: { group: AddressGroup; filename: string; index: number }) {
  const id = exportGroupId(filename, index);
  return (
    <article className="card export-group" aria-label={group.mainAddress}>
      <h2 className="card-title">
        <Link to={`/search-result/${encodeURIComponent(id)}`} state={groupNavState(group, id)}>
          {group.mainAddress}
        </Link>
      </h2>
      <div className="result-columns">
        <section>
          <h3 className="subtitle">Building Details</h3>
          {group.buildingDetails.length === 0 ? <p className="muted">No building record.</p> : (
            <dl className="kv-grid small">
              {group.buildingDetails.map(([key, value]) => <div key={key}><dt>{key}</dt><dd>{display(value)}</dd></div>)}
            </dl>
          )}
        </section>
        <section>
          <h3 className="subtitle">Risk Analysis</h3>
          <p><span title={TOTAL_TOOLTIP}>Total Score</span>: <strong>{group.riskScores.total === null ? '—' : group.riskScores.total.toFixed(2)}</strong></p>
          <p title={TOP3_TOOLTIP}>Top 3 Risks</p>
          <p className="top3 small">{group.riskScores.top3 || '—'}</p>
        </section>
      </div>
      <h3 className="subtitle">Occupants at this Address ({group.occupants.length})</h3>
      {group.occupants.length > 0 && (
        // On a phone the vicinity and status columns give way (a status other than operating shows by the name).
        <div className="table-scroll occupants-compact">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="occupant-vicinity-col">Vicinity</th>
                <th scope="col">Types</th>
                <th scope="col">NAICS</th>
                <th scope="col" className="occupant-status-col">Status</th>
              </tr>
            </thead>
            <tbody>
              {group.occupants.map((row, index) => (
                <tr key={index}>
                  <td>
                    {display(row.name)}
                    {display(row.business_status) !== '—' && row.business_status !== 'OPERATIONAL' && (
                      <span className="status-badge status-other occupant-status-inline">{display(row.business_status)}</span>
                    )}
                  </td>
                  <td className="occupant-vicinity-col">{display(row.vicinity)}</td>
                  <td>{display(row.types)}</td>
                  <td>{display(row.naics_code)}</td>
                  <td className="occupant-status-col">
                    <StatusBadge status={row.business_status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </article>
  );
}
