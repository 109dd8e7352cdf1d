/**
 * Absolute URL for a path on the app's own origin. The browser would accept a
 * relative path, but Node's fetch (used under test) needs an absolute one.
 */
export function apiUrl(path: string): string {
  const origin = typeof window !== 'undefined' && window.location ? window.location.origin : '';
  return `${origin}${path}`;
}
