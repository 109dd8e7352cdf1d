import { useEffect, useState, type FormEvent } from 'react';
import { useUpdateMeMutation } from '../../api/api';
import { errorMessage } from '../../api/errors';
import { useAppSelector } from '../../app/hooks';
import { Avatar } from '../../components/Avatar';
import { Banner } from '../../components/Banner';
import { TextField } from '../../components/TextField';
import { usePageTitle } from '../../components/usePageTitle';
import { selectUser } from '../../lib/auth/authSlice';
import { ChangePasswordForm } from './ChangePasswordForm';

export const PROFILE_UPDATED = 'Profile updated successfully';
export const EMAIL_NOTE = 'Email cannot be changed without verification.';
/** SPEC §9: success banners show for 3 seconds. */
export const BANNER_MS = 3000;

interface Draft {
  displayName: string;
  photoURL: string;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** /profile: avatar, display name, read-only email; edit on a draft copy (SPEC §2, §4). */
export default function ProfilePage() {
  usePageTitle('Profile');
  const user = useAppSelector(selectUser);
  const [updateMe, { isLoading: saving }] = useUpdateMeMutation();
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [photoError, setPhotoError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!saved) return undefined;
    const timer = setTimeout(() => setSaved(false), BANNER_MS);
    return () => clearTimeout(timer);
  }, [saved]);

  if (!user) return null;
  const editing = draft !== null;

  function startEdit() {
    if (!user) return;
    setError(null);
    setPhotoError(null);
    setSaved(false);
    setDraft({ displayName: user.displayName ?? '', photoURL: user.photoURL ?? '' });
  }

  function cancelEdit() {
    setDraft(null);
    setError(null);
    setPhotoError(null);
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!draft || saving) return;
    setError(null);
    const photo = draft.photoURL.trim();
    if (photo && !isHttpUrl(photo)) {
      setPhotoError('Please enter a valid http(s) URL');
      return;
    }
    setPhotoError(null);
    try {
      await updateMe({ display_name: draft.displayName.trim() || null, photo_url: photo || null }).unwrap();
      setDraft(null);
      setSaved(true);
    } catch (err) {
      setError(errorMessage(err, 'Failed to update profile'));
    }
  }

  const shownName = editing ? draft.displayName : (user.displayName ?? '');
  const shownPhoto = editing ? draft.photoURL.trim() || null : user.photoURL;

  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1>Profile</h1>
        <p className="muted">Your account details as other PerilScope users and administrators see them.</p>
      </header>

      {saved && <Banner kind="success">{PROFILE_UPDATED}</Banner>}
      {error && <Banner kind="error">{error}</Banner>}

      <section className="card" aria-labelledby="profile-details-title">
        <h2 id="profile-details-title" className="visually-hidden">
          Profile details
        </h2>
        <div className="profile-head">
          <Avatar name={shownName || null} email={user.email} photoURL={shownPhoto} size={88} />
          <div>
            <p className="profile-name">{user.displayName || 'Name not set'}</p>
            <p className="muted">{user.email}</p>
            <span className={`role-badge role-${user.role}`}>
              {user.role === 'admin' ? 'Administrator Account' : 'Regular User Account'}
            </span>
          </div>
        </div>

        <form className="form" onSubmit={save} noValidate aria-busy={saving}>
          {editing ? (
            <>
              <TextField
                label="Display name"
                name="display_name"
                autoComplete="name"
                value={draft.displayName}
                disabled={saving}
                maxLength={100}
                onChange={(e) => setDraft({ ...draft, displayName: e.target.value })}
              />
              <TextField
                label="Photo URL"
                name="photo_url"
                type="url"
                inputMode="url"
                placeholder="https://..."
                value={draft.photoURL}
                disabled={saving}
                error={photoError}
                hint="Leave empty to use a generated avatar with your initials."
                onChange={(e) => setDraft({ ...draft, photoURL: e.target.value })}
              />
            </>
          ) : (
            <dl className="kv">
              <div>
                <dt>Display name</dt>
                <dd>{user.displayName || <span className="muted">Name not set</span>}</dd>
              </div>
            </dl>
          )}
          <TextField
            label="Email"
            type="email"
            name="email"
            value={user.email}
            readOnly
            hint={EMAIL_NOTE}
          />
          <div className="button-row">
            {editing ? (
              <>
                {/* Distinct keys: reusing the Edit button's element as the submit button would
                    let the click that started editing submit the form at once. */}
                <button key="save" type="submit" className="btn btn-primary" disabled={saving}>
                  {saving ? 'Saving...' : 'Save Changes'}
                </button>
                <button type="button" className="btn btn-outline" onClick={cancelEdit} disabled={saving}>
                  Cancel
                </button>
              </>
            ) : (
              <button key="edit" type="button" className="btn btn-primary" onClick={startEdit}>
                Edit Profile
              </button>
            )}
          </div>
        </form>
      </section>

      <ChangePasswordForm />
    </div>
  );
}
