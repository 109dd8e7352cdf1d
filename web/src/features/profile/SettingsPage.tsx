import { usePageTitle } from '../../components/usePageTitle';
import { ChangePasswordForm } from './ChangePasswordForm';
import { TwoFactorSection } from './TwoFactorSection';

export const API_KEYS_TEXT =
  'API keys arrive with the public API. When it is available you will create, name and revoke your keys here.';

/** /settings: change password, two-factor sign-in and (soon) API keys for the public API. */
export default function SettingsPage() {
  usePageTitle('Settings');
  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1>Settings</h1>
        <p className="muted">Security and developer settings for your account.</p>
      </header>
      <ChangePasswordForm />
      <TwoFactorSection />
      <section className="card" aria-labelledby="api-keys-title">
        <h2 id="api-keys-title" className="card-title">
          API keys
        </h2>
        <p>{API_KEYS_TEXT}</p>
      </section>
    </div>
  );
}
