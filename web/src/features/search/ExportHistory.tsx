import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useDeleteExportMutation, useListExportedFilesQuery } from '../../api/api';
import { ClientSuppliedBadge } from '../../components/ClientSuppliedBadge';
import { errorMessage } from '../../api/errors';
import type { ExportedFile } from '../../api/types';
import { Banner } from '../../components/Banner';
import { ExportDownloads } from '../../components/ExportDownloads';
import { InlineConfirm } from '../../components/InlineConfirm';
import { Spinner } from '../../components/Spinner';

/** Batch Export History (SPEC §2): newest first, each linking to its viewer, each deletable. */
export function ExportHistory() {
  const { data: files = [], isLoading, error } = useListExportedFilesQuery(undefined, { refetchOnMountOrArgChange: true });
  const [deleteExport, { isLoading: deleting }] = useDeleteExportMutation();
  const [confirming, setConfirming] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  async function confirmDelete(file: ExportedFile) {
    try {
      await deleteExport(file.name).unwrap();
      setOutcome({ kind: 'success', text: `Deleted ${file.name}.` });
    } catch (failure) {
      setOutcome({ kind: 'error', text: `Could not delete ${file.name}: ${errorMessage(failure, 'the server did not answer')}` });
    } finally {
      setConfirming(null);
    }
  }

  return (
    <section className="card" aria-labelledby="exports-title">
      <h2 id="exports-title" className="card-title">Batch Export History</h2>
      {isLoading && <Spinner label="Loading exports..." />}
      {error && <Banner kind="warning">Could not load previously exported files list.</Banner>}
      {outcome && <Banner kind={outcome.kind}>{outcome.text}</Banner>}
      {!isLoading && !error && files.length === 0 && (
        <p className="muted">No exports yet. Upload a CSV of addresses to make one.</p>
      )}
      {files.length > 0 && (
        <ul className="export-list" aria-label="Exported files">
          {files.map((file) => (
            <li key={file.id} className="export-item">
              <Link
                to={`/batch-export-detail/${encodeURIComponent(file.name)}`}
                state={{ filename: file.name, filePath: file.path }}
                className="export-link"
              >
                <strong>{file.name}</strong>
                <span className="muted small">{new Date(file.exported_at).toLocaleString()}</span>
                {file.source === 'client' && <ClientSuppliedBadge />}
              </Link>
              <div className="export-actions">
                {file.source !== 'client' && (
                  // Rows a client sent have no detailed export, so no portfolio to sum.
                  <Link to={`/portfolio/${encodeURIComponent(file.name)}`} className="btn btn-outline btn-sm"
                    aria-label={`Portfolio of ${file.name}`}>
                    Portfolio
                  </Link>
                )}
                <ExportDownloads filename={file.name} compact />
                {confirming === file.name ? (
                  <InlineConfirm
                    className="export-confirm"
                    label={`Delete ${file.name}?`}
                    message="Delete this export? This cannot be undone."
                    action="Delete"
                    busyAction="Deleting..."
                    busy={deleting}
                    onConfirm={() => void confirmDelete(file)}
                    onCancel={() => setConfirming(null)}
                  />
                ) : (
                  <button
                    type="button"
                    className="btn btn-outline btn-sm export-delete"
                    aria-label={`Delete ${file.name}`}
                    onClick={() => {
                      setOutcome(null);
                      setConfirming(file.name);
                    }}
                  >
                    Delete
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
