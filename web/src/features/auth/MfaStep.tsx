import { useEffect, useRef, useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';
import { useLoginMfaMutation } from './mfaLoginApi';
import './mfaStep.css';

export const MFA_STEP_TITLE = 'Two-factor sign-in';
export const CODE_FORMAT_MESSAGE = 'Enter the 6-digit code from your authenticator app.';
export const RECOVERY_FORMAT_MESSAGE = 'Enter one of your recovery codes, like ABCDE-12345.';

interface MfaStepProps {
  /** The id of the step's heading, which names the card it sits in. */
  titleId: string;
  mfaToken: string;
  /** After success; the session is in the store by then. */
  onSignedIn: () => void;
  /** Back to email and password (the token expired, or the person wants another account). */
  onCancel: () => void;
}

/** The second sign-in step: a 6-digit code from the app, or a recovery code. */
export function MfaStep({ titleId, mfaToken, onSignedIn, onCancel }: MfaStepProps) {
  const [loginMfa, { isLoading }] = useLoginMfaMutation();
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);

  // Keyboard first: the cursor waits in the field, also after switching to a recovery code.
  useEffect(() => {
    input.current?.focus();
  }, [useRecovery]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    setFormError(null);
    const typed = code.replace(/\s+/g, '');
    const valid = useRecovery ? typed.replace(/-/g, '').length === 10 : /^\d{6}$/.test(typed);
    if (!valid) {
      setFieldError(useRecovery ? RECOVERY_FORMAT_MESSAGE : CODE_FORMAT_MESSAGE);
      input.current?.focus();
      return;
    }
    setFieldError(null);
    try {
      await loginMfa(
        useRecovery ? { mfa_token: mfaToken, recovery_code: typed } : { mfa_token: mfaToken, code: typed },
      ).unwrap();
      onSignedIn();
    } catch (error) {
      setFormError(errorMessage(error, 'Sign-in failed. Please try again.'));
      setCode('');
      input.current?.focus();
    }
  }

  const label = useRecovery ? 'Recovery code' : 'Authentication code';
  const errorId = 'mfa-code-error';
  return (
    <div className="mfa-step">
      <div className="auth-brand" aria-hidden="true">
        <span className="brand-mark" />
      </div>
      <h1 id={titleId}>{MFA_STEP_TITLE}</h1>
      <p className="auth-subtitle">
        {useRecovery
          ? 'Enter one of the recovery codes you saved when you set up two-factor sign-in. Each code works once.'
          : 'Open your authenticator app and enter the 6-digit code for PerilScope.'}
      </p>
      {formError && <Banner kind="error">{formError}</Banner>}
      <form className="form" onSubmit={submit} noValidate aria-busy={isLoading}>
        <div className="field">
          <label htmlFor="mfa-code">{label}</label>
          <input
            id="mfa-code"
            ref={input}
            key={useRecovery ? 'recovery' : 'totp'}
            name={useRecovery ? 'recovery_code' : 'code'}
            className={useRecovery ? 'mfa-code-input mfa-recovery-input' : 'mfa-code-input'}
            type="text"
            inputMode={useRecovery ? 'text' : 'numeric'}
            autoComplete={useRecovery ? 'off' : 'one-time-code'}
            autoCapitalize={useRecovery ? 'characters' : 'off'}
            spellCheck={false}
            pattern={useRecovery ? undefined : '[0-9 ]*'}
            maxLength={useRecovery ? 16 : 7}
            placeholder={useRecovery ? 'XXXXX-XXXXX' : undefined}
            value={code}
            disabled={isLoading}
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={fieldError ? errorId : undefined}
            onChange={(event) => {
              setCode(event.target.value);
              if (fieldError) setFieldError(null);
            }}
          />
          {fieldError && (
            <p id={errorId} className="field-error">
              {fieldError}
            </p>
          )}
        </div>
        <button type="submit" className="btn btn-primary btn-block" disabled={isLoading}>
          Verify and sign in
        </button>
        {isLoading && (
          <div className="auth-verifying">
            <Spinner label="Checking the code..." size="sm" />
          </div>
        )}
      </form>
      <div className="mfa-step-links">
        <button
          type="button"
          className="link-button"
          onClick={() => {
            setUseRecovery(!useRecovery);
            setCode('');
            setFieldError(null);
          }}
        >
          {useRecovery ? 'Use a code from your authenticator app' : 'Use a recovery code'}
        </button>
        <button type="button" className="link-button" onClick={onCancel}>
          Back to sign in
        </button>
      </div>
    </div>
  );
}
