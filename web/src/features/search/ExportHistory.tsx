import { Link } from 'react-router-dom';
import { useListExportedFilesQuery } from '../../api/api';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';

/** Batch Export History (SPEC §2): newest first, each linking to its viewer. */
export function ExportHistory() {
  const { data: files = [], isLoading, error } = useListExportedFilesQuery(undefined, { refetchOnMountOrArgChange: true });
  return (
    <section className="card" aria-labelledby="exports-title">
      <h2 id="exports-title" className="card-title">Batch Export History</h2>
      {isLoading && <Spinner label="Loading exports..." />}
      {error && <Banner kind="warning">Could not load previously exported files list.</Banner>}
      {!isLoading && !error && files.length === 0 && (
        <p className="muted">No exports yet. Upload a CSV of addresses to make one.</p>
      )}
      {files.length > 0 && (
        <ul className="export-list" aria-label="Exported files">
          {files.map((file) => (
            <li key={file.id}>
              <Link
                to={`/batch-export-detail/${encodeURIComponent(file.name)}`}
                state={{ filename: file.name, filePath: file.path }}
                className="export-link"
              >
                <strong>{file.name}</strong>
                <span className="muted small">{new Date(file.exported_at).toLocaleString()}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
