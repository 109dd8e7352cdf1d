import { usePageTitle } from '../../components/usePageTitle';
import { ApiKeysSection } from './ApiKeysSection';
import { ChangePasswordForm } from './ChangePasswordForm';
import { TwoFactorSection } from './TwoFactorSection';

/** /settings: change password, two-factor sign-in and the public API's keys. */
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
      <ApiKeysSection />
    </div>
  );
}
