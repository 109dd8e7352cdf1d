import { usePageTitle } from '../../components/usePageTitle';
import { ApiKeysSection } from './ApiKeysSection';
import { ChangePasswordForm } from './ChangePasswordForm';
import { TwoFactorSection } from './TwoFactorSection';
import { WebhooksSection } from './WebhooksSection';

/** /settings: change password, two-factor sign-in, the public API's keys and webhooks. */
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
      <WebhooksSection />
    </div>
  );
}
