import { skipToken } from '@reduxjs/toolkit/query';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useListExportedFilesQuery } from '../../api/api';
import { errorStatus, failureText } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { ExportDownloads, downloadErrorText } from '../../components/ExportDownloads';
import { CLIENT_SUPPLIED_LABEL, CLIENT_SUPPLIED_NOTE, ClientSuppliedBadge } from '../../components/ClientSuppliedBadge';
import { StatusBadge } from '../../components/StatusBadge';
import { PageSpinner, Spinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { useDownload } from '../../lib/download';
import { useExportFile } from '../../lib/exports/exportFile';
import { display, exportGroupId, groupNavState, type AddressGroup } from '../../lib/exports/groups';
import { NO_FILTER, useExportRowsQuery } from './exportRowsApi';
import { ROWS_PER_PAGE, ServerRows } from './ServerRows';
import { StretchNav, stretchOf } from './StretchNav';
import { BuildingDetails, TOP3_TOOLTIP, TotalScore } from './CardParts';
import { VirtualGroups } from './VirtualGroups';


function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * /batch-export-detail/{filename}: an export's rows, paged and filtered on the server, and its
 * download. An export without a detailed version (rows a client sent, or an old one) is read from
 * its SPEC CSV in the browser instead, unfiltered.
 */
export default function ExportDetailPage() {
  const params = useParams();
  const filename = params.filename ? safeDecode(params.filename) : '';
  const rows = useExportRowsQuery(filename ? { filename, ...NO_FILTER, offset: 0, limit: ROWS_PER_PAGE } : skipToken);
  const fromFile = rows.error !== undefined && errorStatus(rows.error) === 404;
  const { load } = useExportFile(fromFile ? filename : null);
  const { busy: preparing, error: downloadError, download } = useDownload();
  const [started, setStarted] = useState(false);
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

  const loading = rows.isLoading || load.state === 'loading';
  return (
    <div className="page">
      <header className="page-header result-header">
        <h1 className="break-all">Export: {filename} {clientSupplied && <ClientSuppliedBadge />}</h1>
        <div className="button-row">
          <button type="button" className="btn btn-primary" onClick={downloadCsv} disabled={loading || preparing}>
            {preparing ? <Spinner size="sm" label="Preparing..." /> : 'Download CSV'}
          </button>
          {!clientSupplied && (
            <Link to={`/portfolio/${encodeURIComponent(filename)}`} className="btn btn-outline">Portfolio</Link>
          )}
          <Link to="/data-processing" className="btn btn-outline">Back</Link>
        </div>
      </header>
      <ExportDownloads filename={filename} disabled={loading} />
      {clientSupplied && (
        <Banner kind="warning">
          <strong>{CLIENT_SUPPLIED_LABEL}.</strong> {CLIENT_SUPPLIED_NOTE} Check them against a PerilScope batch before relying on them.
        </Banner>
      )}
      {downloadError !== null && <Banner kind="error">{downloadErrorText(downloadError)}</Banner>}
      {started && <Banner kind="info">Download started.</Banner>}
      {loading && <PageSpinner label="Loading the export's rows..." />}
      {rows.error !== undefined && !fromFile && (
        <div className="error-panel" role="alert"><p>{failureText(rows.error)}</p></div>
      )}
      {rows.data && (rows.data.total_rows === 0
        ? <p className="muted">The exported file is empty.</p>
        : <ServerRows filename={filename} first={rows.data} />)}
      {fromFile && <FileGroups filename={filename} load={load} />}
    </div>
  );
}

/** The SPEC CSV's address groups, read in the browser, with their occupants. */
function FileGroups({ filename, load }: { filename: string; load: ReturnType<typeof useExportFile>['load'] }) {
  const [stretch, setStretch] = useState(0);
  const groups = load.state === 'loaded' ? load.groups : [];
  const { current, start, size, many } = stretchOf(groups.length, stretch);
  function goToStretch(next: number) {
    setStretch(next);
    window.scrollTo(0, 0);
  }
  if (load.state === 'error') {
    return (
      <div className="error-panel" role="alert">
        <p>{load.message}</p>
        {load.unreadable && <p>The file itself is kept: use Download CSV above to save it.</p>}
      </div>
    );
  }
  if (load.state !== 'loaded') return null;
  if (groups.length === 0) return <p className="muted">The exported file is empty.</p>;
  return (
    <>
      {load.dropped > 0 && <Banner kind="warning">{load.dropped} row(s) before the first address were left out.</Banner>}
      <p className="muted">Displaying {groups.length} address group(s) from {filename}</p>
      {many && <StretchNav place="top" current={current} total={groups.length} noun="Groups" onGo={goToStretch} />}
      <VirtualGroups
        key={current}
        count={size}
        label="Address groups"
        render={(position) => <GroupCard group={groups[start + position]!} filename={filename} index={start + position} />}
      />
      {many && <StretchNav place="bottom" current={current} total={groups.length} noun="Groups" onGo={goToStretch} />}
    </>
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
        <BuildingDetails details={group.buildingDetails} />
        <section>
          <h3 className="subtitle">Risk Analysis</h3>
          <p><TotalScore score={group.riskScores.total} /></p>
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
