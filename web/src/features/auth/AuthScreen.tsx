import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { useGetProvidersQuery, useLoginMutation, useSignupMutation } from '../../api/api';
import { errorMessage } from '../../api/errors';
import { fullPageNavigate } from '../../app/browser';
import { useAppSelector } from '../../app/hooks';
import { Banner } from '../../components/Banner';
import { PasswordField } from '../../components/PasswordField';
import { Spinner } from '../../components/Spinner';
import { TextField } from '../../components/TextField';
import { usePageTitle } from '../../components/usePageTitle';
import { selectUser } from '../../lib/auth/authSlice';
import { destinationAfterLogin, type FromState } from './guards';
import { PasswordChecklist } from '../../components/PasswordChecklist';
import { allRulesMet, MSG_PASSWORDS_DO_NOT_MATCH, MSG_REQUIREMENTS_NOT_MET } from '../../lib/passwordRules';
import { validateEmail } from '../../lib/validation';
import { MfaStep } from './MfaStep';

export type AuthMode = 'login' | 'signup';

export const SIGNUP_SUCCESS_MESSAGE = 'Account created. Please sign in.';
export const NO_PROVIDERS_MESSAGE = 'Third-party sign-in is not configured on this server. Use email and password.';
/** Where an administrator who must set up two-factor sign-in goes first. */
export const MFA_ENROLMENT_PAGE = '/settings';
const MFA_TOKEN_FRAGMENT = '#mfa_token=';

/** Third-party sign-in of an enrolled user comes back as /login#mfa_token=<token>. */
function mfaTokenFromHash(hash: string): string | null {
  if (!hash.startsWith(MFA_TOKEN_FRAGMENT)) return null;
  try {
    return decodeURIComponent(hash.slice(MFA_TOKEN_FRAGMENT.length)) || null;
  } catch {
    return null;
  }
}

interface AuthScreenProps {
  mode: AuthMode;
}

/** /login and /signup: one screen in two modes (SPEC §2). */
export default function AuthScreen({ mode }: AuthScreenProps) {
  const isSignup = mode === 'signup';
  usePageTitle(isSignup ? 'Sign up' : 'Sign in');
  const navigate = useNavigate();
  const location = useLocation();
  const user = useAppSelector(selectUser);
  // A failed third-party sign-in comes back as /login?error=<message>.
  const [searchParams] = useSearchParams();
  const redirectError = searchParams.get('error');
  const [login, loginState] = useLoginMutation();
  const [signup, signupState] = useSignupMutation();

  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [rememberMe, setRememberMe] = useState(false);
  const [emailError, setEmailError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [mfaToken, setMfaToken] = useState<string | null>(() => (isSignup ? null : mfaTokenFromHash(location.hash)));

  // The token is taken out of the address bar at once, so it stays out of history and bookmarks.
  const hashHoldsToken = mfaTokenFromHash(location.hash) !== null;
  useEffect(() => {
    if (hashHoldsToken) navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: location.state });
  }, [hashHoldsToken, navigate, location.pathname, location.search, location.state]);

  const busy = loginState.isLoading || signupState.isLoading;
  const signedUp = !isSignup && (location.state as FromState | null)?.signedUp === true;
  const rulesMet = allRulesMet(password, confirm);
  const mismatch = isSignup && confirm.length > 0 && password !== confirm;
  const showRequirementsNote = isSignup && password.length > 0 && !rulesMet && !mismatch;

  const mustEnrol = loginState.data?.status === 'success' && loginState.data.mfa_enrolment_required === true;
  const afterLogin = mustEnrol ? MFA_ENROLMENT_PAGE : destinationAfterLogin(location.state);
  if (user) {
    return <Navigate to={afterLogin} replace />;
  }

  async function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setFormError(null);
    const emailProblem = validateEmail(email);
    const passwordProblem = password ? null : 'Password is required';
    setEmailError(emailProblem);
    setPasswordError(passwordProblem);
    if (emailProblem || passwordProblem) return;

    if (isSignup) {
      if (password !== confirm) {
        setFormError(MSG_PASSWORDS_DO_NOT_MATCH);
        return;
      }
      if (!rulesMet) {
        setFormError(MSG_REQUIREMENTS_NOT_MET);
        return;
      }
      try {
        await signup({ email: email.trim(), password }).unwrap();
        navigate('/login', { state: { signedUp: true, from: (location.state as FromState | null)?.from } });
      } catch (error) {
        setFormError(errorMessage(error, 'Signup failed'));
      }
      return;
    }

    try {
      const answer = await login({ email: email.trim(), password, remember_me: rememberMe }).unwrap();
      if (answer.status === 'mfa_required') {
        setPassword('');
        setMfaToken(answer.mfa_token);
        return;
      }
      navigate(answer.mfa_enrolment_required ? MFA_ENROLMENT_PAGE : destinationAfterLogin(location.state), {
        replace: true,
      });
    } catch (error) {
      setFormError(errorMessage(error, 'Login failed'));
    }
  }

  const otherModeState = location.state ?? undefined;

  if (mfaToken && !isSignup) {
    return (
      <div className="auth-page">
        <section className="auth-card" aria-labelledby="mfa-step-title">
          <MfaStep
            titleId="mfa-step-title"
            mfaToken={mfaToken}
            onSignedIn={() => navigate(destinationAfterLogin(location.state), { replace: true })}
            onCancel={() => setMfaToken(null)}
          />
        </section>
      </div>
    );
  }

  return (
    <div className="auth-page">
      <section className="auth-card" aria-labelledby="auth-title">
        <div className="auth-brand" aria-hidden="true">
          <span className="brand-mark" />
        </div>
        <h1 id="auth-title">{isSignup ? 'Create your account' : 'Sign in to PerilScope'}</h1>
        <p className="auth-subtitle">
          {isSignup
            ? 'Property occupancy and geo peril risk data for insurance professionals.'
            : 'Welcome back. Sign in to search properties and review your exports.'}
        </p>

        {signedUp && <Banner kind="success">{SIGNUP_SUCCESS_MESSAGE}</Banner>}
        {formError ? (
          <Banner kind="error">{formError}</Banner>
        ) : (
          redirectError && <Banner kind="error">{redirectError}</Banner>
        )}

        <form className="form" onSubmit={handleSubmit} noValidate aria-busy={busy}>
          <TextField
            label="Email"
            type="email"
            name="email"
            autoComplete="email"
            inputMode="email"
            required
            value={email}
            error={emailError}
            disabled={busy}
            onChange={(e) => {
              setEmail(e.target.value);
              if (emailError) setEmailError(null);
            }}
          />
          <PasswordField
            label="Password"
            name="password"
            autoComplete={isSignup ? 'new-password' : 'current-password'}
            required
            value={password}
            error={passwordError}
            disabled={busy}
            onChange={(e) => {
              setPassword(e.target.value);
              if (passwordError) setPasswordError(null);
            }}
          />

          {isSignup && (
            <>
              <PasswordField
                label="Confirm password"
                name="confirm-password"
                autoComplete="new-password"
                required
                value={confirm}
                disabled={busy}
                error={mismatch ? MSG_PASSWORDS_DO_NOT_MATCH : null}
                onChange={(e) => setConfirm(e.target.value)}
              />
              <PasswordChecklist password={password} confirm={confirm} id="signup-checklist" />
              {showRequirementsNote && (
                <p className="field-hint" id="signup-requirements-note">
                  {MSG_REQUIREMENTS_NOT_MET}
                </p>
              )}
            </>
          )}

          {!isSignup && (
            <div className="form-row-between">
              <label className="checkbox">
                <input
                  type="checkbox"
                  name="remember_me"
                  checked={rememberMe}
                  disabled={busy}
                  onChange={(e) => setRememberMe(e.target.checked)}
                />
                <span>Remember me</span>
              </label>
              <Link to="/forgot-password" className="text-link">
                Forgot password?
              </Link>
            </div>
          )}

          <button
            type="submit"
            className="btn btn-primary btn-block"
            disabled={busy || (isSignup && !rulesMet)}
            aria-describedby={showRequirementsNote ? 'signup-requirements-note' : undefined}
          >
            {isSignup ? 'Sign up' : 'Sign in'}
          </button>

          {busy && (
            <div className="auth-verifying">
              <Spinner label="Verifying credentials..." size="sm" />
            </div>
          )}
        </form>

        <ThirdPartySignIn disabled={busy} />

        <p className="auth-switch">
          {isSignup ? (
            <>
              Already have an account?{' '}
              <Link to="/login" state={otherModeState} className="text-link">
                Go to sign in
              </Link>
            </>
          ) : (
            <>
              New to PerilScope?{' '}
              <Link to="/signup" state={otherModeState} className="text-link">
                Create an account
              </Link>
            </>
          )}
        </p>
      </section>
    </div>
  );
}

function ThirdPartySignIn({ disabled }: { disabled: boolean }) {
  const { data, isLoading, isError } = useGetProvidersQuery();
  const providers = data?.providers ?? [];
  return (
    <div className="third-party" aria-label="Third-party sign-in" role="group">
      <div className="divider">
        <span>or</span>
      </div>
      {isLoading ? (
        <Spinner size="sm" />
      ) : isError || providers.length === 0 ? (
        <p className="muted small">{NO_PROVIDERS_MESSAGE}</p>
      ) : (
        <div className="provider-buttons">
          {providers.map((provider) => (
            <button
              key={provider.id}
              type="button"
              className="btn btn-outline btn-block"
              disabled={disabled}
              onClick={() => {
                fullPageNavigate(`/api/auth/oidc/${encodeURIComponent(provider.id)}/login`);
              }}
            >
              Continue with {provider.name}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
