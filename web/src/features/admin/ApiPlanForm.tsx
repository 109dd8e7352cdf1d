import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { useFlash } from '../../components/useFlash';
import { useUpdateUserPlanMutation, type ApiPlan, type ApiPlanName } from './adminApi';

export const PLAN_UPDATED = 'API plan updated successfully';
const PLAN_OPTIONS: { value: ApiPlanName; label: string }[] = [
  { value: 'standard', label: 'Standard (100 requests a day)' },
  { value: 'premium', label: 'Premium (1,000 requests a day)' },
  { value: 'enterprise', label: 'Enterprise (custom)' },
];
export const MAX_CUSTOM_DAILY_LIMIT = 10_000_000;

/** A whole number of requests a day for Enterprise, else the message to show. */
export function parseDailyLimit(text: string): number | string {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(value) || value < 1 || value > MAX_CUSTOM_DAILY_LIMIT) {
    return `Enter a whole number of requests a day from 1 to ${MAX_CUSTOM_DAILY_LIMIT.toLocaleString('en-US')}.`;
  }
  return value;
}

/** /admin/users: show and set a user's public API plan (SPEC §9); enforced from their next request. */
export function ApiPlanForm({ uid, current }: { uid: string; current: ApiPlan }) {
  const [updatePlan, { isLoading }] = useUpdateUserPlanMutation();
  const [plan, setPlan] = useState<ApiPlanName>(current.plan);
  const [limit, setLimit] = useState(current.plan === 'enterprise' ? String(current.daily_limit) : '');
  const [error, setError] = useState<string | null>(null);
  const [saved, flashSaved] = useFlash();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    setError(null);
    const dailyLimit = plan === 'enterprise' ? parseDailyLimit(limit) : undefined;
    if (typeof dailyLimit === 'string') {
      setError(dailyLimit);
      return;
    }
    try {
      await updatePlan({ uid, plan, ...(dailyLimit !== undefined ? { daily_limit: dailyLimit } : {}) }).unwrap();
      flashSaved(PLAN_UPDATED);
    } catch (failure) {
      setError(errorMessage(failure, 'Failed to update the API plan'));
    }
  }

  return (
    <form className="form api-plan-form" onSubmit={submit} noValidate aria-label="API plan" aria-busy={isLoading}>
      <p>
        API plan: <strong>{PLAN_OPTIONS.find((option) => option.value === current.plan)?.label.split(' (')[0]}</strong>,{' '}
        {current.daily_limit.toLocaleString('en-US')} requests a day
      </p>
      {saved && <Banner kind="success">{saved}</Banner>}
      {error && <Banner kind="error">{error}</Banner>}
      <div className="field">
        <label htmlFor={`plan-${uid}`}>Plan</label>
        <select id={`plan-${uid}`} value={plan} disabled={isLoading} onChange={(event) => setPlan(event.target.value as ApiPlanName)}>
          {PLAN_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {plan === 'enterprise' && (
        <div className="field">
          <label htmlFor={`daily-limit-${uid}`}>Requests a day</label>
          <input
            id={`daily-limit-${uid}`}
            inputMode="numeric"
            value={limit}
            disabled={isLoading}
            onChange={(event) => setLimit(event.target.value)}
          />
        </div>
      )}
      <button type="submit" className="btn btn-outline" disabled={isLoading}>
        {isLoading ? 'Saving...' : 'Save plan'}
      </button>
    </form>
  );
}
