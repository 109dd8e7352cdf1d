import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { useForgotPasswordMutation } from '../../api/api';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';
import { TextField } from '../../components/TextField';
import { usePageTitle } from '../../components/usePageTitle';
import { validateEmail } from '../../lib/validation';

export const MAIL_CLIENT_URL = 'https://mail.google.com';

/** /forgot-password: email form, then a 'Check your email' state (SPEC §2, §4). */
export default function ForgotPasswordPage() {
  usePageTitle('Forgot password');
  const [forgotPassword, { isLoading }] = useForgotPasswordMutation();
  const [email, setEmail] = useState('');
  const [emailError, setEmailError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [serverMessage, setServerMessage] = useState<string | null>(null);

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    setError(null);
    const problem = validateEmail(email);
    setEmailError(problem);
    if (problem) return;
    try {
      const answer = await forgotPassword({ email: email.trim() }).unwrap();
      setServerMessage(answer.message ?? null);
      setSentTo(email.trim());
    } catch (err) {
      setError(errorMessage(err, 'Failed to send reset email', ['detail', 'error']));
    }
  }

  if (sentTo) {
    return (
      <div className="auth-page">
        <section className="auth-card" aria-labelledby="forgot-title">
          <div className="auth-success-icon" aria-hidden="true">
            ✉
          </div>
          <h1 id="forgot-title">Check your email</h1>
          <p className="auth-subtitle">
            {serverMessage ?? 'If an account exists for that email, we have sent a password reset link.'}
          </p>
          <p className="muted small">
            Sent to <strong>{sentTo}</strong>. The link expires soon, so use it promptly.
          </p>
          <div className="stack-sm">
            <a className="btn btn-primary btn-block" href={MAIL_CLIENT_URL} target="_blank" rel="noopener noreferrer">
              Open email
            </a>
            <Link className="btn btn-outline btn-block" to="/login">
              Back to login
            </Link>
          </div>
          <p className="auth-switch">
            Didn't receive the email? Check your spam folder or{' '}
            <button
              type="button"
              className="link-button"
              onClick={() => {
                setSentTo(null);
                setServerMessage(null);
              }}
            >
              try again
            </button>
          </p>
        </section>
      </div>
    );
  }

  return (
    <div className="auth-page">
      <section className="auth-card" aria-labelledby="forgot-title">
        <h1 id="forgot-title">Forgot your password?</h1>
        <p className="auth-subtitle">Enter the email you signed up with and we will send you a link to reset it.</p>
        {error && <Banner kind="error">{error}</Banner>}
        <form className="form" onSubmit={handleSubmit} noValidate aria-busy={isLoading}>
          <TextField
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            error={emailError}
            disabled={isLoading}
            onChange={(e) => {
              setEmail(e.target.value);
              if (emailError) setEmailError(null);
            }}
          />
          <button type="submit" className="btn btn-primary btn-block" disabled={isLoading}>
            Send reset link
          </button>
          {isLoading && <Spinner size="sm" label="Sending..." />}
        </form>
        <p className="auth-switch">
          Remembered it?{' '}
          <Link to="/login" className="text-link">
            Back to login
          </Link>
        </p>
      </section>
    </div>
  );
}
