import { useEffect, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useListExportedFilesQuery } from '../../api/api';
import { useAppSelector } from '../../app/hooks';
import { Banner } from '../../components/Banner';
import { PageSpinner, Spinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { selectAccessToken } from '../auth/authSlice';
import { CLIENT_SUPPLIED_LABEL, CLIENT_SUPPLIED_NOTE, ClientSuppliedBadge } from '../search/ExportHistory';
import { display, exportGroupId, groupNavState, type AddressGroup } from './groups';
import { authorizedFetch, useExportFile } from './useExportFile';

const GROUPS_PER_PAGE = 25; // a 50,000-row export renders a page at a time
const TOTAL_TOOLTIP = 'Composite of the geo peril scores for all 18 disasters (FEMA National Risk Index).';
const TOP3_TOOLTIP = 'Top three disaster geo peril';

type Download = { state: 'idle' } | { state: 'preparing' } | { state: 'started' } | { state: 'error'; message: string };

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** /batch-export-detail/{filename}: an export's address groups, a page at a time, and its download. */
export default function ExportDetailPage() {
  const params = useParams();
  const filename = params.filename ? safeDecode(params.filename) : '';
  const token = useAppSelector(selectAccessToken);
  const load = useExportFile(filename || null);
  const [download, setDownload] = useState<Download>({ state: 'idle' });
  const [page, setPage] = useState(0);
  usePageTitle(filename ? `Export: ${filename}` : 'Export');
  // Where the rows came from is on the history's entry for this file.
  const { clientSupplied } = useListExportedFilesQuery(undefined, {
    selectFromResult: ({ data }) => ({ clientSupplied: data?.some((file) => file.name === filename && file.source === 'client') ?? false }),
  });

  useEffect(() => {
    if (download.state !== 'started') return undefined;
    const timer = setTimeout(() => setDownload({ state: 'idle' }), 3000);
    return () => clearTimeout(timer);
  }, [download]);

  const pageGroups = useMemo(
    () => (load.state === 'loaded' ? load.groups.slice(page * GROUPS_PER_PAGE, (page + 1) * GROUPS_PER_PAGE) : []),
    [load, page],
  );

  if (!filename) {
    return (
      <div className="page">
        <div className="error-panel" role="alert"><p>No filename provided.</p></div>
      </div>
    );
  }

  async function downloadCsv() {
    if (!filename) {
      setDownload({ state: 'error', message: 'Invalid filename for download' });
      return;
    }
    setDownload({ state: 'preparing' });
    try {
      const response = await authorizedFetch(`/api/download/${encodeURIComponent(filename)}`, token);
      if ((response.headers.get('content-type') ?? '').includes('json') || !response.ok) {
        const body = (await response.json().catch(() => ({}))) as { error?: string };
        throw new Error(body.error ?? 'Unknown download error');
      }
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.click();
      URL.revokeObjectURL(url);
      setDownload({ state: 'started' });
    } catch (error) {
      setDownload({ state: 'error', message: `Download error: ${error instanceof Error ? error.message : 'Unknown download error'}` });
    }
  }

  const pages = load.state === 'loaded' ? Math.ceil(load.groups.length / GROUPS_PER_PAGE) : 0;
  return (
    <div className="page">
      <header className="page-header result-header">
        <h1 className="break-all">Export: {filename} {clientSupplied && <ClientSuppliedBadge />}</h1>
        <div className="button-row">
          <button type="button" className="btn btn-primary" onClick={downloadCsv}
            disabled={load.state === 'loading' || download.state === 'preparing'}>
            {download.state === 'preparing' ? <Spinner size="sm" label="Preparing..." /> : 'Download CSV'}
          </button>
          <Link to="/data-processing" className="btn btn-outline">Back</Link>
        </div>
      </header>
      {clientSupplied && (
        <Banner kind="warning">
          <strong>{CLIENT_SUPPLIED_LABEL}.</strong> {CLIENT_SUPPLIED_NOTE} Check them against a PerilScope batch before relying on them.
        </Banner>
      )}
      {download.state === 'error' && <Banner kind="error">{download.message}</Banner>}
      {download.state === 'started' && <Banner kind="info">Download started.</Banner>}
      {load.state === 'loading' && <PageSpinner label="Loading file content..." />}
      {load.state === 'error' && (
        <div className="error-panel" role="alert"><p>{load.message || 'Could not load file content.'}</p></div>
      )}
      {load.state === 'loaded' && load.groups.length === 0 && <p className="muted">The exported file is empty.</p>}
      {load.state === 'loaded' && load.groups.length > 0 && (
        <>
          {load.dropped > 0 && <Banner kind="warning">{load.dropped} row(s) before the first address were left out.</Banner>}
          <p className="muted">Displaying {load.groups.length} address group(s) from {filename}</p>
          <div className="export-groups">
            {pageGroups.map((group, i) => (
              <GroupCard key={group.key} group={group} filename={filename} index={page * GROUPS_PER_PAGE + i} />
            ))}
          </div>
          {pages > 1 && (
            <nav className="button-row pager" aria-label="Address group pages">
              <button type="button" className="btn btn-outline" disabled={page === 0} onClick={() => setPage(page - 1)}>Previous page</button>
              <span>Page {page + 1} of {pages}</span>
              <button type="button" className="btn btn-outline" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>Next page</button>
            </nav>
          )}
        </>
      )}
    </div>
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
          <p><span title={TOTAL_TOOLTIP}>Total Score</span>: <strong>{group.riskScores.total.toFixed(2)}</strong></p>
          <p title={TOP3_TOOLTIP}>Top 3 Risks</p>
          <p className="top3 small">{group.riskScores.top3 || '—'}</p>
        </section>
      </div>
      <h3 className="subtitle">Occupants at this Address ({group.occupants.length})</h3>
      {group.occupants.length > 0 && (
        <div className="table-scroll">
          <table className="table">
            <thead>
              <tr><th scope="col">Name</th><th scope="col">Vicinity</th><th scope="col">Types</th><th scope="col">NAICS</th><th scope="col">Status</th></tr>
            </thead>
            <tbody>
              {group.occupants.map((row, index) => (
                <tr key={index}>
                  <td>{display(row.name)}</td>
                  <td>{display(row.vicinity)}</td>
                  <td>{display(row.types)}</td>
                  <td>{display(row.naics_code)}</td>
                  <td>
                    <span className={`status-badge ${row.business_status === 'OPERATIONAL' ? 'status-ok' : 'status-other'}`}>
                      {display(row.business_status)}
                    </span>
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
