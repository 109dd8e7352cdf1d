import { useState } from 'react';

// White initials need 4.5:1 on every colour (WCAG AA): the light teal #13a89e gave 2.94.
const PALETTE = ['#0b2545', '#13315c', '#0e7c86', '#0f766e', '#1d4e89', '#5b5f97', '#2a6f97'];

export function initialsOf(name: string | null | undefined, email?: string | null): string {
  const source = (name ?? '').trim() || (email ?? '').split('@')[0] || '';
  const parts = source.split(/[\s._-]+/).filter(Boolean);
  if (parts.length === 0) return '?';
  const first = parts[0]?.[0] ?? '';
  const second = parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : (parts[0]?.[1] ?? '');
  return (first + second).toUpperCase();
}

function colourFor(seed: string): string {
  let hash = 0;
  for (let i = 0; i < seed.length; i += 1) hash = (hash * 31 + seed.charCodeAt(i)) | 0;
  return PALETTE[Math.abs(hash) % PALETTE.length] ?? PALETTE[0]!;
}

interface AvatarProps {
  name: string | null | undefined;
  email?: string | null;
  photoURL?: string | null;
  size?: number;
  className?: string;
}

function labelOf(name: string | null | undefined, email?: string | null): string {
  return name?.trim() || email || 'User';
}

function sizeStyle(size: number) {
  return { width: size, height: size, fontSize: Math.round(size * 0.4) };
}

/**
 * A generated avatar, made here from the name: the one to show for ANOTHER user (the admin
 * pages). Their photo_url is an address they chose; loading it in someone else's browser would
 * tell that server who looked and when (#10 item 11), so it is never put into an <img>.
 */
export function InitialsAvatar({ name, email, size = 40, className }: Omit<AvatarProps, 'photoURL'>) {
  const label = labelOf(name, email);
  return (
    <span
      className={['avatar', 'avatar-initials', className].filter(Boolean).join(' ')}
      role="img"
      aria-label={`${label} avatar`}
      style={{ ...sizeStyle(size), background: colourFor(label) }}
    >
      {initialsOf(name, email)}
    </span>
  );
}

/**
 * The signed-in user's OWN photo (top bar, profile), or their initials when there is none or it
 * fails to load. Never for another user: use InitialsAvatar.
 */
export function Avatar({ name, email, photoURL, size = 40, className }: AvatarProps) {
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const label = labelOf(name, email);
  const style = sizeStyle(size);
  if (photoURL && failedUrl !== photoURL) {
    return (
      <img
        className={['avatar', className].filter(Boolean).join(' ')}
        src={photoURL}
        alt={`${label} avatar`}
        width={size}
        height={size}
        style={style}
        onError={() => setFailedUrl(photoURL)}
      />
    );
  }
  return <InitialsAvatar name={name} email={email} size={size} className={className} />;
}
