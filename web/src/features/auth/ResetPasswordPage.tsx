import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useResetPasswordMutation } from '../../api/api';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { PasswordField } from '../../components/PasswordField';
import { Spinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { PasswordChecklist } from '../../components/PasswordChecklist';
import { allRulesMet, MSG_PASSWORDS_DO_NOT_MATCH, MSG_REQUIREMENTS_NOT_MET } from '../../lib/passwordRules';

export const INVALID_RESET_LINK = 'This reset link is invalid or has expired.';
export const RESET_SUCCESS = 'Your password has been reset. You can now sign in with your new password.';

/** /reset-password?token=...: choose a new password with the same rules as signup. */
export default function ResetPasswordPage() {
  usePageTitle('Reset password');
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [resetPassword, { isLoading }] = useResetPasswordMutation();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const rulesMet = allRulesMet(password, confirm);
  const mismatch = confirm.length > 0 && password !== confirm;

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    setError(null);
    if (password !== confirm) {
      setError(MSG_PASSWORDS_DO_NOT_MATCH);
      return;
    }
    if (!rulesMet) {
      setError(MSG_REQUIREMENTS_NOT_MET);
      return;
    }
    try {
      await resetPassword({ token, password }).unwrap();
      setDone(true);
    } catch (err) {
      setError(errorMessage(err, 'Failed to reset password'));
    }
  }

  return (
    <div className="auth-page">
      <section className="auth-card" aria-labelledby="reset-title">
        <h1 id="reset-title">Reset your password</h1>
        {done ? (
          <>
            <Banner kind="success">{RESET_SUCCESS}</Banner>
            <Link to="/login" className="btn btn-primary btn-block">
              Go to sign in
            </Link>
          </>
        ) : !token ? (
          <>
            <Banner kind="error">{INVALID_RESET_LINK}</Banner>
            <p className="auth-switch">
              <Link to="/forgot-password" className="text-link">
                Request a new reset link
              </Link>
            </p>
          </>
        ) : (
          <>
            <p className="auth-subtitle">Choose a new password for your account.</p>
            {error && <Banner kind="error">{error}</Banner>}
            <form className="form" onSubmit={handleSubmit} noValidate aria-busy={isLoading}>
              <PasswordField
                label="New password"
                name="new-password"
                autoComplete="new-password"
                required
                value={password}
                disabled={isLoading}
                onChange={(e) => setPassword(e.target.value)}
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
              <PasswordChecklist password={password} confirm={confirm} />
              <button type="submit" className="btn btn-primary btn-block" disabled={isLoading || !rulesMet}>
                Reset password
              </button>
              {isLoading && <Spinner size="sm" label="Saving..." />}
            </form>
            {error === INVALID_RESET_LINK && (
              <p className="auth-switch">
                <Link to="/forgot-password" className="text-link">
                  Request a new reset link
                </Link>
              </p>
            )}
            <p className="auth-switch">
              <Link to="/login" className="text-link">
                Back to login
              </Link>
            </p>
          </>
        )}
      </section>
    </div>
  );
}
