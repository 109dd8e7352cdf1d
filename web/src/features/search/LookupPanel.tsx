import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { useGetSearchStatsQuery, useNearbySearchMutation } from '../../api/api';
import type { SearchResult } from '../../api/types';
import { Banner, type BannerKind } from '../../components/Banner';
import { remainingOf } from '../dashboard/quota';
import { NO_RESULTS, searchErrorMessage } from './resultView';

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
  const [search, { isLoading: busy }] = useNearbySearchMutation();
  const remaining = stats ? remainingOf(stats) : null;
  const limitReached = remaining === 0;

  function typeAddress(value: string) {
    setAddress(value);
    if (file) {
      // SPEC §4: typing an address while a file is ready clears the file and the message.
      setFile(null);
      setStatus(null);
      if (fileInput.current) fileInput.current.value = '';
    }
  }

  function chooseFile(chosen: File | undefined) {
    if (!chosen) return;
    if (!chosen.name.toLowerCase().endsWith('.csv')) {
      setStatus({ kind: 'error', text: 'Upload failed: Only .csv files are accepted' });
      return;
    }
    setAddress(''); // choosing a file clears the address
    setFile(chosen);
    setStatus({ kind: 'info', text: `File selected: ${chosen.name}` });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (busy || limitReached) return;
    if (file && !address.trim()) {
      setStatus({ kind: 'info', text: 'Batch processing is coming soon.' });
      return;
    }
    if (!address.trim()) {
      setStatus({ kind: 'warning', text: 'Please enter an address for single search' });
      return;
    }
    setStatus(null);
    try {
      const response = await search(address.trim()).unwrap();
      if (response.data.length === 0) setStatus({ kind: 'warning', text: NO_RESULTS });
      else setStatus({ kind: 'success', text: `Found ${response.data.length} occupant(s) at ${address.trim()}` });
      onResult?.(response.result);
    } catch (error) {
      const message = searchErrorMessage(error);
      setStatus({ kind: 'error', text: message.text });
      if (message.limitReached) void refetchStats();
    }
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    chooseFile(event.dataTransfer.files?.[0]);
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
              >
                ?
              </button>
              {helpOpen && (
                <span id="lookup-help" role="tooltip" className="tooltip">
                  Enter a complete address: street, city, state and ZIP, e.g. 701 5th Ave, Seattle, WA 98104.
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
          <label className="btn btn-outline btn-small">
            Choose CSV file
            <input
              ref={fileInput}
              type="file"
              accept=".csv,text/csv"
              className="visually-hidden"
              onChange={(e) => chooseFile(e.target.files?.[0])}
            />
          </label>
          <p className="muted small">Columns: Street Address, City, State, Zip, Country</p>
        </div>

        <button type="submit" className="btn btn-primary btn-block" disabled={busy || limitReached}>
          {actionLabel({ busy, limitReached, address, file })}
        </button>
      </form>
      {status && (
        <Banner kind={status.kind} className="lookup-status">
          {status.text}
        </Banner>
      )}
    </section>
  );
}
