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

/** The limit as typed, or an error message: a whole number from 1 to 100 (SPEC §5). */
export function parseLimit(text: string): number | string {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < MIN_LIMIT || value > MAX_LIMIT) {
    return `Enter a whole number from ${MIN_LIMIT} to ${MAX_LIMIT}.`;
  }
  return value;
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
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saved, flashSaved] = useFlash();

  useEffect(() => {
    if (!data?.settings) return;
    setLimitText(String(data.settings.monthly_search_limit));
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
    if (typeof limit === 'string') {
      setLimitError(limit);
      return;
    }
    setLimitError(null);
    try {
      await save({ monthly_search_limit: limit, ...flags }).unwrap();
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
          <div className="field">
            <label htmlFor="monthly-limit">Regular User Monthly Search Limit</label>
            <input
              id="monthly-limit"
              className="input"
              type="number"
              min={MIN_LIMIT}
              max={MAX_LIMIT}
              step={1}
              value={limitText}
              aria-invalid={!!limitError}
              aria-describedby={limitError ? 'monthly-limit-error' : undefined}
              onChange={(event) => setLimitText(event.target.value)}
              disabled={saving}
            />
            {limitError && <p id="monthly-limit-error" className="field-error">{limitError}</p>}
          </div>
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
