const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** SPEC §5: email is required and must be in email format. Returns the problem, or null. */
export function validateEmail(value: string): string | null {
  const email = value.trim();
  if (!email) return 'Email is required';
  if (!EMAIL_RE.test(email)) return 'Please enter a valid email address';
  return null;
}
