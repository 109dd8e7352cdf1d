import { useState, type FormEvent } from 'react';
import { useChangePasswordMutation } from '../../api/api';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { PasswordField } from '../../components/PasswordField';
import { PasswordChecklist } from '../../components/PasswordChecklist';
import { allRulesMet, MSG_PASSWORDS_DO_NOT_MATCH, MSG_REQUIREMENTS_NOT_MET } from '../../lib/passwordRules';

export const PASSWORD_CHANGED = 'Password changed successfully';

/** Change password: current, new and confirm, with the live requirements checklist. */
export function ChangePasswordForm({ headingLevel = 2 }: { headingLevel?: 2 | 3 }) {
  const [changePassword, { isLoading }] = useChangePasswordMutation();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState(false);
  const rulesMet = allRulesMet(next, confirm);
  const mismatch = confirm.length > 0 && next !== confirm;
  const Heading = headingLevel === 2 ? 'h2' : 'h3';

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    setError(null);
    setSuccess(false);
    if (!current) {
      setError('Current password is required');
      return;
    }
    if (next !== confirm) {
      setError(MSG_PASSWORDS_DO_NOT_MATCH);
      return;
    }
    if (!rulesMet) {
      setError(MSG_REQUIREMENTS_NOT_MET);
      return;
    }
    try {
      await changePassword({ current_password: current, new_password: next }).unwrap();
      setSuccess(true);
      setCurrent('');
      setNext('');
      setConfirm('');
    } catch (err) {
      setError(errorMessage(err, 'Failed to change password'));
    }
  }

  return (
    <section className="card" aria-labelledby="change-password-title">
      <Heading id="change-password-title" className="card-title">
        Change password
      </Heading>
      {success && <Banner kind="success">{PASSWORD_CHANGED}</Banner>}
      {error && <Banner kind="error">{error}</Banner>}
      <form className="form form-narrow" onSubmit={handleSubmit} noValidate aria-busy={isLoading}>
        <PasswordField
          label="Current password"
          name="current-password"
          autoComplete="current-password"
          required
          value={current}
          disabled={isLoading}
          onChange={(e) => setCurrent(e.target.value)}
        />
        <PasswordField
          label="New password"
          name="new-password"
          autoComplete="new-password"
          required
          value={next}
          disabled={isLoading}
          onChange={(e) => setNext(e.target.value)}
        />
        <PasswordField
          label="Confirm password"
          name="confirm-password"
          autoComplete="new-password"
          required
          value={confirm}
          disabled={isLoading}
          error={mismatch ? MSG_PASSWORDS_DO_NOT_MATCH : null}
          onChange={(e) => setConfirm(e.target.value)}
        />
        <PasswordChecklist password={next} confirm={confirm} />
        <div>
          <button type="submit" className="btn btn-primary" disabled={isLoading || !current || !rulesMet}>
            {isLoading ? 'Changing...' : 'Change password'}
          </button>
        </div>
      </form>
    </section>
  );
}
