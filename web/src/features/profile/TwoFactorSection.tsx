import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { PasswordField } from '../../components/PasswordField';
import { Spinner } from '../../components/Spinner';
import { TextField } from '../../components/TextField';
import { useCopyText } from '../../lib/useCopyText';
import {
  useConfirmMfaEnrolmentMutation,
  useDisableMfaMutation,
  useMfaStatusQuery,
  useStartMfaEnrolmentMutation,
  type MfaEnrolment,
} from './mfaApi';
import './twoFactor.css';
import { saveBlob } from '../../lib/download';

export const MFA_INTRO =
  'Sign in with your password and a 6-digit code from an authenticator app on your phone, so a stolen password alone cannot open your account.';
export const MFA_REQUIRED_NOTICE =
  'Two-factor sign-in is required for administrators on this site. Set it up to use the admin pages and lookups again.';
export const MFA_TURNED_ON = 'Two-factor sign-in is on.';
export const MFA_TURNED_OFF = 'Two-factor sign-in is off.';
export const RECOVERY_CODES_FILE = 'perilscope-recovery-codes.txt';
export const LOW_RECOVERY_CODES = 3;

/** The base-32 key in groups of four, easier to type into an app by hand. */
export function groupedSecret(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

function isSixDigits(text: string): boolean {
  return /^\d{6}$/.test(text.replace(/\s+/g, ''));
}

function saveTextFile(name: string, text: string): void {
  saveBlob(new Blob([text], { type: 'text/plain;charset=utf-8' }), name);
}

function recoveryCodesText(codes: string[]): string {
  return [
    'PerilScope recovery codes',
    'Each code signs you in once when you cannot use your authenticator app. Keep them somewhere safe.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/** /settings: set up, check and turn off two-factor sign-in. */
export function TwoFactorSection() {
  const { data: status, isLoading, error: statusError } = useMfaStatusQuery();
  const [enrolment, setEnrolment] = useState<MfaEnrolment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [startEnrolment, starting] = useStartMfaEnrolmentMutation();
  const [startError, setStartError] = useState<string | null>(null);

  async function begin() {
    setNotice(null);
    setStartError(null);
    try {
      setEnrolment(await startEnrolment().unwrap());
    } catch (failure) {
      setStartError(errorMessage(failure, 'Could not start the set-up. Please try again.'));
    }
  }

  let body;
  if (isLoading) {
    body = <Spinner size="sm" label="Loading..." />;
  } else if (statusError || !status) {
    body = <Banner kind="error">{errorMessage(statusError, 'Could not load your two-factor sign-in status.')}</Banner>;
  } else if (recoveryCodes) {
    body = <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />;
  } else if (enrolment) {
    body = (
      <EnrolmentSteps
        enrolment={enrolment}
        passwordRequired={status.password_required}
        onConfirmed={(codes) => {
          setEnrolment(null);
          setRecoveryCodes(codes);
        }}
        onCancel={() => setEnrolment(null)}
      />
    );
  } else if (status.enabled) {
    body = (
      <EnabledStatus
        codesLeft={status.recovery_codes_left}
        passwordRequired={status.password_required}
        required={status.required}
        onDisabled={() => setNotice(MFA_TURNED_OFF)}
      />
    );
  } else {
    body = (
      <>
        {status.required && <Banner kind="warning">{MFA_REQUIRED_NOTICE}</Banner>}
        <p>{MFA_INTRO}</p>
        <p className="mfa-status">
          Status: <strong>Off</strong>
        </p>
        {startError && <Banner kind="error">{startError}</Banner>}
        <button type="button" className="btn btn-primary" onClick={() => void begin()} disabled={starting.isLoading}>
          {starting.isLoading ? 'Starting...' : 'Set up two-factor sign-in'}
        </button>
      </>
    );
  }

  return (
    <section className="card mfa-section" aria-labelledby="mfa-title">
      <h2 id="mfa-title" className="card-title">
        Two-factor sign-in
      </h2>
      {notice && <Banner kind="success">{notice}</Banner>}
      {body}
    </section>
  );
}

function EnrolmentSteps({
  enrolment,
  passwordRequired,
  onConfirmed,
  onCancel,
}: {
  enrolment: MfaEnrolment;
  passwordRequired: boolean;
  onConfirmed: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const [confirm, { isLoading }] = useConfirmMfaEnrolmentMutation();
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const qrSource = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qr_svg)}`;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    const missingPassword = passwordRequired && !password;
    setPasswordError(missingPassword ? 'Enter your current password.' : null);
    setError(isSixDigits(code) ? null : 'Enter the 6-digit code your app shows for PerilScope.');
    if (missingPassword || !isSixDigits(code)) return;
    try {
      const answer = await confirm({ code: code.replace(/\s+/g, ''), password }).unwrap();
      onConfirmed(answer.recovery_codes);
    } catch (failure) {
      setError(errorMessage(failure, 'Could not turn on two-factor sign-in. Please try again.'));
    }
  }

  return (
    <div className="mfa-enrol">
      <ol className="mfa-steps">
        <li>
          <p>
            Scan this QR code with an authenticator app (for example Google Authenticator, Microsoft Authenticator,
            1Password or Aegis).
          </p>
          <img className="mfa-qr" src={qrSource} alt="QR code for setting up two-factor sign-in" width={185} height={185} />
          <p className="muted small">
            On this phone? <a href={enrolment.otpauth_uri}>Open it in your authenticator app</a>. Cannot scan it? Enter
            this key in the app instead:
          </p>
          <code className="mfa-secret" aria-label="Set-up key">
            {groupedSecret(enrolment.secret)}
          </code>
        </li>
        <li>
          <form className="form form-narrow" onSubmit={submit} noValidate aria-busy={isLoading}>
            {passwordRequired && (
              <CurrentPassword
                value={password}
                onChange={setPassword}
                busy={isLoading}
                error={passwordError}
                hint="Asked again so that only you can turn this on."
              />
            )}
            <TextField
              label="Enter the 6-digit code from the app"
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]*"
              maxLength={7}
              value={code}
              error={error}
              disabled={isLoading}
              onChange={(event) => setCode(event.target.value)}
            />
            <SubmitOrCancel label="Turn on" busyLabel="Checking..." busy={isLoading} onCancel={onCancel} />
          </form>
        </li>
      </ol>
    </div>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, copy] = useCopyText(
    'Recovery codes copied.',
    'Copying is blocked in this browser: download the codes or write them down.',
  );
  const text = recoveryCodesText(codes);

  return (
    <div className="mfa-recovery">
      <Banner kind="success">{MFA_TURNED_ON}</Banner>
      <p>
        <strong>Save these recovery codes now.</strong> Each one signs you in once if you lose your phone. They are not
        shown again.
      </p>
      <ul className="mfa-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      {copied && <p role="status" className="muted small">{copied}</p>}
      <div className="button-row">
        <button type="button" className="btn btn-outline" onClick={() => void copy(text)}>
          Copy codes
        </button>
        <button type="button" className="btn btn-outline" onClick={() => saveTextFile(RECOVERY_CODES_FILE, text)}>
          Download codes
        </button>
        <button type="button" className="btn btn-primary" onClick={onDone}>
          I have saved my codes
        </button>
      </div>
    </div>
  );
}

function EnabledStatus({
  codesLeft,
  passwordRequired,
  required,
  onDisabled,
}: {
  codesLeft: number;
  passwordRequired: boolean;
  required: boolean;
  onDisabled: () => void;
}) {
  const [open, setOpen] = useState(false);
  const [disable, { isLoading }] = useDisableMfaMutation();
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (isLoading) return;
    if (!code.trim()) {
      setError('Enter a code from your authenticator app, or a recovery code.');
      return;
    }
    setError(null);
    try {
      await disable({ password, code: code.trim() }).unwrap();
      onDisabled();
    } catch (failure) {
      setError(errorMessage(failure, 'Could not turn off two-factor sign-in. Please try again.'));
    }
  }

  return (
    <>
      <p className="mfa-status">
        Status: <strong className="mfa-on">On</strong> · {codesLeft} recovery {codesLeft === 1 ? 'code' : 'codes'} left
      </p>
      {codesLeft <= LOW_RECOVERY_CODES && (
        <Banner kind="warning">
          Few recovery codes are left. To get new ones, turn two-factor sign-in off and set it up again.
        </Banner>
      )}
      {required ? (
        <p className="muted">Two-factor sign-in is required for administrators on this site, so it stays on.</p>
      ) : !open ? (
        <button type="button" className="btn btn-outline" onClick={() => setOpen(true)}>
          Turn off two-factor sign-in
        </button>
      ) : (
        <form className="form form-narrow" onSubmit={submit} noValidate aria-busy={isLoading}>
          <p className="muted">
            Confirm with {passwordRequired ? 'your password and ' : ''}a current code (or a recovery code).
          </p>
          {error && <Banner kind="error">{error}</Banner>}
          {passwordRequired && <CurrentPassword value={password} onChange={setPassword} busy={isLoading} />}
          <TextField
            label="Authentication or recovery code"
            name="mfa-disable-code"
            autoComplete="one-time-code"
            spellCheck={false}
            value={code}
            disabled={isLoading}
            onChange={(event) => setCode(event.target.value)}
          />
          <SubmitOrCancel label="Turn off" busyLabel="Turning off..." busy={isLoading} onCancel={() => setOpen(false)} />
        </form>
      )}
    </>
  );
}

function SubmitOrCancel({
  label,
  busyLabel,
  busy,
  onCancel,
}: {
  label: string;
  busyLabel: string;
  busy: boolean;
  onCancel: () => void;
}) {
  return (
    <div className="button-row">
      <button type="submit" className="btn btn-primary" disabled={busy}>
        {busy ? busyLabel : label}
      </button>
      <button type="button" className="btn btn-outline" onClick={onCancel} disabled={busy}>
        Cancel
      </button>
    </div>
  );
}

function CurrentPassword({
  value,
  onChange,
  busy,
  error = null,
  hint,
}: {
  value: string;
  onChange: (value: string) => void;
  busy: boolean;
  error?: string | null;
  hint?: string;
}) {
  return (
    <PasswordField
      label="Current password"
      name="current-password"
      autoComplete="current-password"
      hint={hint}
      value={value}
      error={error}
      disabled={busy}
      onChange={(event) => onChange(event.target.value)}
    />
  );
}
