import { useId, useState } from 'react';
import { errorMessage, failureText } from '../api/errors';
import { useDownload } from '../lib/download';
import { detailedExportPath, type DetailedFormat } from '../lib/exports/detailed';
import { Banner } from './Banner';

/** The detailed export's formats, with a name to save under should the server not give one. */
export const DETAILED_FORMATS: { format: DetailedFormat; label: string; extension: string }[] = [
  { format: 'csv', label: 'Detailed CSV', extension: 'detailed.csv' },
  { format: 'xlsx', label: 'XLSX', extension: 'xlsx' },
  { format: 'jsonl', label: 'JSON Lines', extension: 'jsonl' },
  { format: 'parquet', label: 'Parquet', extension: 'parquet' },
];

/** SPEC §8: 'Download error: {server error field, else error message, else Unknown download error}'. */
export function downloadErrorText(error: unknown): string {
  return `Download error: ${errorMessage(error, failureText(error))}`;
}

function fallbackName(filename: string, extension: string): string {
  return `${filename.replace(/\.csv$/i, '')}.${extension}`;
}

interface Props {
  filename: string;
  /** The history's entry: one 'Formats' button opens the buttons (the SPEC CSV among them). */
  compact?: boolean;
  disabled?: boolean;
}

/**
 * Downloads of an export beyond the SPEC CSV: the detailed export as CSV, XLSX, JSON Lines or Parquet,
 * each through the API client (token refresh included) and saved under the server's file name.
 */
export function ExportDownloads({ filename, compact = false, disabled = false }: Props) {
  const { busy, error, download } = useDownload();
  const [open, setOpen] = useState(!compact);
  const [started, setStarted] = useState<string | null>(null);
  const buttonsId = useId();

  async function save(label: string, path: string, name: string) {
    setStarted(null);
    if (await download(path, name)) setStarted(label);
  }

  const buttons = [
    ...(compact ? [{ label: 'CSV', path: `/api/download/${encodeURIComponent(filename)}`, name: filename }] : []),
    ...DETAILED_FORMATS.map((f) => ({ label: f.label, path: detailedExportPath(filename, f.format), name: fallbackName(filename, f.extension) })),
  ];

  return (
    <div className={compact ? 'export-downloads export-downloads-compact' : 'export-downloads'}>
      {compact && (
        <button
          type="button"
          className="btn btn-outline btn-sm"
          aria-expanded={open}
          aria-controls={buttonsId}
          aria-label={`Download formats for ${filename}`}
          onClick={() => setOpen((value) => !value)}
        >
          Download <span aria-hidden="true">{open ? '▴' : '▾'}</span>
        </button>
      )}
      <div id={buttonsId} className="button-row export-format-buttons" role="group" aria-label={`Other formats of ${filename}`} hidden={!open}>
        {buttons.map((b) => (
          <button
            key={b.label}
            type="button"
            className="btn btn-outline btn-sm"
            disabled={disabled || busy}
            onClick={() => void save(b.label, b.path, b.name)}
          >
            {b.label}
          </button>
        ))}
      </div>
      {busy && <span className="muted small" role="status">Preparing...</span>}
      {started && !busy && <span className="muted small" role="status">{started} download started.</span>}
      {error !== null && <Banner kind="error">{downloadErrorText(error)}</Banner>}
    </div>
  );
}
