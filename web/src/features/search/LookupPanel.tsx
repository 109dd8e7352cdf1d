import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import {
  api,
  useGetSearchStatsQuery,
  useNearbySearchMutation,
  useStartBatchJobMutation,
  useUploadCsvMutation,
} from '../../api/api';
import { useAppDispatch } from '../../app/hooks';
import type { BatchJob, SearchResult } from '../../api/types';
import { Banner, type BannerKind } from '../../components/Banner';
import { remainingOf } from './quota';
import { batchErrorMessage, lookupMessage, searchErrorMessage, uploadErrorText } from './errorMessages';
import { BatchProgress } from './BatchProgress';
import { FailedRowsNotice } from './FailedRowsNotice';
import { failedRowsOf, rowCountText } from './jobFigures';
import { useBatchJobs } from './useBatchJobs';

interface Status {
  kind: BannerKind;
  text: string;
}

/** SPEC §2: the one action button's label. */
export function actionLabel(opts: { busy: boolean; limitReached: boolean; address: string; file: File | null }): string {
  if (opts.busy) return 'Processing...';
  if (opts.limitReached) return 'Monthly search limit reached';
  if (opts.address.trim()) return 'Search Address';
  if (opts.file) return 'Process Batch File';
  return 'Search';
}

/** Single Property Lookup, the OR divider and the CSV drop zone, with one action button. */
export function LookupPanel({ onResult }: { onResult?: (result: SearchResult) => void }) {
  const [address, setAddress] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [status, setStatus] = useState<Status | null>(null);
  const [helpOpen, setHelpOpen] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const { data: stats, refetch: refetchStats } = useGetSearchStatsQuery();
  const [search, { isLoading: searching }] = useNearbySearchMutation();
  const [uploadCsv, { isLoading: uploading }] = useUploadCsvMutation();
  const [startJob, { isLoading: starting }] = useStartBatchJobMutation();
  const [fileId, setFileId] = useState<string | null>(null);
  const startedHere = useRef<string | null>(null);
  // The last finished job whose failed rows can be run again.
  const [withFailedRows, setWithFailedRows] = useState<BatchJob | null>(null);
  const dispatch = useAppDispatch();
  // Jobs live on the server: coming back to the dashboard shows the ones still running.
  const { jobs, running: jobRunning, track } = useBatchJobs((job: BatchJob) => {
    if (job.status === 'done') {
      // SPEC §4: the export joins the history, the file is cleared.
      setStatus({ kind: 'success', text: `Batch complete: ${job.total} address(es) exported to ${job.export_filename}` });
      if (startedHere.current === job.id) clearFile();
      dispatch(api.util.invalidateTags(['Exports', 'Searches', 'SearchStats']));
    } else {
      setStatus({ kind: 'error', text: `Batch processing error: ${job.error ?? 'the job failed'}` });
    }
    setWithFailedRows((failedRowsOf(job) ?? 0) > 0 ? job : null);
  });
  const busy = searching || uploading || starting || jobRunning;
  const remaining = stats ? remainingOf(stats) : null;
  const limitReached = remaining === 0;

  function clearFile() {
    setFile(null);
    setFileId(null);
    if (fileInput.current) fileInput.current.value = '';
  }

  function typeAddress(value: string) {
    setAddress(value);
    if (file) {
      // SPEC §4: typing an address while a file is ready clears the file and the message.
      clearFile();
      setStatus(null);
    }
  }

  async function chooseFile(chosen: File | undefined) {
    if (!chosen || busy) return;
    if (!chosen.name.toLowerCase().endsWith('.csv')) {
      setStatus({ kind: 'error', text: 'Upload failed: Only .csv files are accepted.' });
      return;
    }
    setAddress(''); // choosing a file clears the address
    setFile(chosen);
    setFileId(null);
    setStatus({ kind: 'info', text: `Uploading ${chosen.name}...` });
    try {
      const uploaded = await uploadCsv(chosen).unwrap();
      setFileId(uploaded.file_id);
      setStatus({ kind: 'success', text: `File uploaded successfully: ${chosen.name}` });
    } catch (error) {
      clearFile();
      setStatus({ kind: 'error', text: uploadErrorText(error) });
    }
  }

  async function processBatch() {
    if (!fileId) {
      setStatus({ kind: 'warning', text: 'Please upload a CSV file and wait for upload to complete.' });
      return;
    }
    setStatus({ kind: 'info', text: 'Batch processing started.' });
    setWithFailedRows(null);
    try {
      const started = await startJob(fileId).unwrap();
      startedHere.current = started.id;
      track(started);
    } catch (error) {
      const message = batchErrorMessage(error);
      setStatus({ kind: 'error', text: message.text });
      if (message.limitReached) void refetchStats();
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy || limitReached) return;
    if (file && !address.trim()) {
      await processBatch();
      return;
    }
    if (!address.trim()) {
      setStatus({ kind: 'warning', text: 'Please enter an address for single search' });
      return;
    }
    setStatus(null);
    try {
      const response = await search(address.trim()).unwrap();
      setStatus(lookupMessage(response.result, response.data.length, address.trim()));
      onResult?.(response.result);
    } catch (error) {
      const message = searchErrorMessage(error);
      setStatus({ kind: 'error', text: message.text });
      if (message.limitReached) void refetchStats();
    }
  }

  function rerunStarted(job: BatchJob) {
    setWithFailedRows(null);
    setStatus({ kind: 'info', text: `Running the ${rowCountText(job.total)} that failed again.` });
    track(job);
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    void chooseFile(event.dataTransfer.files?.[0]);
  }

  return (
    <section className="card lookup-panel" aria-labelledby="lookup-title">
      <h2 id="lookup-title" className="card-title">
        Single Property Lookup
      </h2>
      <form onSubmit={submit} className="form" noValidate>
        <div className="field">
          <div className="label-row">
            <label htmlFor="lookup-address">Property address</label>
            <span className="tooltip-wrap">
              <button
                type="button"
                className="icon-button"
                aria-label="Address help"
                aria-expanded={helpOpen}
                aria-controls="lookup-help"
                onClick={() => setHelpOpen((open) => !open)}
                onBlur={() => setHelpOpen(false)}
                onKeyDown={(e) => e.key === 'Escape' && setHelpOpen(false)}
              >
                ?
              </button>
              {helpOpen && (
                <span id="lookup-help" role="tooltip" className="tooltip">
                  Enter a complete address: street, city, state, ZIP (e.g. 701 5th Ave, Seattle, WA 98104).
                </span>
              )}
            </span>
          </div>
          <input
            id="lookup-address"
            className="input"
            value={address}
            placeholder="701 5th Ave, Seattle, WA 98104"
            autoComplete="street-address"
            maxLength={300}
            disabled={busy}
            onChange={(e) => typeAddress(e.target.value)}
          />
        </div>

        <div className="or-divider" role="separator">
          <span>OR</span>
        </div>

        <div
          className={`drop-zone${file ? ' drop-zone-ready' : ''}`}
          onDragOver={(e) => e.preventDefault()}
          onDrop={onDrop}
        >
          <p>{file ? file.name : 'Drop a CSV of addresses here'}</p>
          {/* The visible button is the keyboard's stop (with its focus ring) and opens the file
              picker; the hidden input stays out of the tab order and the accessibility tree. */}
          <button type="button" className="btn btn-outline btn-small" disabled={busy} onClick={() => fileInput.current?.click()}>
            Choose CSV file
          </button>
          <input
            ref={fileInput}
            type="file"
            accept=".csv,text/csv"
            className="visually-hidden"
            aria-label="Choose CSV file"
            aria-hidden="true"
            tabIndex={-1}
            disabled={busy}
            onChange={(e) => void chooseFile(e.target.files?.[0])}
          />
          <p className="muted small">Columns: Street Address, City, State, Zip, Country</p>
        </div>

        <button type="submit" className="btn btn-primary btn-block" disabled={busy || limitReached}>
          {actionLabel({ busy, limitReached, address, file })}
        </button>
      </form>
      {jobs.map((job) => (
        <BatchProgress key={job.id} job={job} />
      ))}
      {status && (
        <Banner kind={status.kind} className="lookup-status">
          {status.text}
        </Banner>
      )}
      {withFailedRows && (
        <FailedRowsNotice
          key={withFailedRows.id}
          job={withFailedRows}
          onStarted={rerunStarted}
          onLimitReached={() => void refetchStats()}
        />
      )}
    </section>
  );
}
