import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { PageSpinner } from '../../components/Spinner';
import { useFlash } from '../../components/useFlash';
import { usePageTitle } from '../../components/usePageTitle';
import { useSaveSystemSettingsMutation, useSystemSettingsQuery, type SystemSettings } from './adminApi';
import { useLeaveOnRefusal } from './useAdminGate';
import './admin.css';

type Switch = 'rate_limiting' | 'search_caching' | 'require_admin_mfa';
const SWITCHES: [Switch, string][] = [
  ['rate_limiting', 'Enable API Rate Limiting'],
  ['search_caching', 'Enable Search Caching'],
  ['require_admin_mfa', 'Require two-factor sign-in for all administrators'],
];

export const MIN_LIMIT = 1;
export const MAX_LIMIT = 100;
export const MIN_BATCH_ROWS = 1;
export const MAX_BATCH_ROWS = 1_000_000;
const DEFAULT_BATCH_ROWS = 10_000;

/** A number as typed, or an error message when it is not a whole number from `min` to `max`. */
function parseWholeNumber(text: string, min: number, max: number): number | string {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    return `Enter a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}.`;
  }
  return value;
}

/** The search limit as typed, or an error message: a whole number from 1 to 100 (SPEC §5). */
export function parseLimit(text: string): number | string {
  return parseWholeNumber(text, MIN_LIMIT, MAX_LIMIT);
}

export function parseBatchRows(text: string): number | string {
  return parseWholeNumber(text, MIN_BATCH_ROWS, MAX_BATCH_ROWS);
}

/** /admin/settings: saved for real and enforced (DESIGN.md departs from SPEC here). */
export default function SystemSettingsPage() {
  usePageTitle('System Settings');
  const { data, error, isLoading } = useSystemSettingsQuery();
  useLeaveOnRefusal(error);
  const [save, { isLoading: saving }] = useSaveSystemSettingsMutation();
  const [limitText, setLimitText] = useState('10');
  const [flags, setFlags] = useState<Pick<SystemSettings, Switch>>({
    rate_limiting: true,
    search_caching: true,
    require_admin_mfa: false,
  });
  const [limitError, setLimitError] = useState<string | null>(null);
  const [rowsText, setRowsText] = useState(String(DEFAULT_BATCH_ROWS));
  const [rowsError, setRowsError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saved, flashSaved] = useFlash();

  useEffect(() => {
    if (!data?.settings) return;
    setLimitText(String(data.settings.monthly_search_limit));
    setRowsText(String(data.settings.monthly_batch_row_limit ?? DEFAULT_BATCH_ROWS));
    setFlags({
      rate_limiting: data.settings.rate_limiting,
      search_caching: data.settings.search_caching,
      require_admin_mfa: data.settings.require_admin_mfa,
    });
  }, [data]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaveError(null);
    const limit = parseLimit(limitText);
    const rows = parseBatchRows(rowsText);
    setLimitError(typeof limit === 'string' ? limit : null);
    setRowsError(typeof rows === 'string' ? rows : null);
    if (typeof limit === 'string' || typeof rows === 'string') return;
    try {
      await save({ monthly_search_limit: limit, ...flags, monthly_batch_row_limit: rows }).unwrap();
      flashSaved('Settings saved');
    } catch (failure) {
      setSaveError(errorMessage(failure, 'Could not save the settings. Please try again.'));
    }
  }

  return (
    <div className="page admin-page narrow">
      <header className="page-header">
        <h1>System Settings</h1>
        <p className="muted lead">Limits and protections that apply to every user.</p>
      </header>
      {error && <Banner kind="error">{errorMessage(error, 'Could not load the settings.')}</Banner>}
      {saved && <Banner kind="success">{saved}</Banner>}
      {saveError && <Banner kind="error">{saveError}</Banner>}
      {isLoading ? (
        <PageSpinner label="Loading settings..." />
      ) : (
        <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
          <WholeNumberField
            id="monthly-limit"
            label="Regular User Monthly Search Limit"
            min={MIN_LIMIT}
            max={MAX_LIMIT}
            value={limitText}
            error={limitError}
            onChange={setLimitText}
            disabled={saving}
          />
          <WholeNumberField
            id="monthly-batch-rows"
            label="Regular User Monthly Batch Rows"
            min={MIN_BATCH_ROWS}
            max={MAX_BATCH_ROWS}
            value={rowsText}
            error={rowsError}
            onChange={setRowsText}
            disabled={saving}
            help="CSV rows a regular user may process in batches each month (1 to 1,000,000). A batch still counts as one search."
          />
          {SWITCHES.map(([key, label]) => (
            <label key={key} className="checkbox">
              <input
                type="checkbox"
                checked={flags[key]}
                onChange={(event) => setFlags({ ...flags, [key]: event.target.checked })}
                disabled={saving}
              />
              {label}
            </label>
          ))}
          <Banner kind="warning">
            Changes apply to every user from their next request. Rate limiting caps each user&apos;s lookups and uploads per
            minute. Search caching answers a repeat lookup of the same building within 24 hours from the stored result,
            without calling data providers; it still counts against the user&apos;s monthly limit. Requiring two-factor
            sign-in sends every administrator without it to Settings to set it up at their next sign-in; set it up for
            your own account first.
          </Banner>
          <button type="submit" className="btn btn-accent" disabled={saving}>
            {saving ? 'Saving...' : 'Save Settings'}
          </button>
        </form>
      )}
    </div>
  );
}

interface WholeNumberFieldProps {
  id: string;
  label: string;
  min: number;
  max: number;
  value: string;
  error: string | null;
  onChange: (text: string) => void;
  disabled: boolean;
  help?: string;
}

function WholeNumberField({ id, label, min, max, value, error, onChange, disabled, help }: WholeNumberFieldProps) {
  const describedBy = error ? `${id}-error` : help ? `${id}-help` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="input"
        type="number"
        min={min}
        max={max}
        step={1}
        value={value}
        aria-invalid={!!error}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value)}
        disabled={disabled}
      />
      {error ? (
        <p id={`${id}-error`} className="field-error">{error}</p>
      ) : (
        help && <p id={`${id}-help`} className="muted small">{help}</p>
      )}
    </div>
  );
}
