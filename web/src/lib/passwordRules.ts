/** SPEC §5: the characters that count as "special" in a password. */
export const SPECIAL_CHARACTERS = '!@#$%^&*(),.?":{}|<>';
export const PASSWORD_MIN_LENGTH = 8;

export const MSG_REQUIREMENTS_NOT_MET = 'Please ensure all password requirements are met';
export const MSG_PASSWORDS_DO_NOT_MATCH = 'Passwords do not match';

export interface PasswordRule {
  id: 'length' | 'number' | 'lowercase' | 'uppercase' | 'special' | 'match';
  label: string;
  met: boolean;
}

const SPECIAL_RE = /[!@#$%^&*(),.?":{}|<>]/;

export function passwordRules(password: string, confirm: string): PasswordRule[] {
  return [
    { id: 'length', label: `At least ${PASSWORD_MIN_LENGTH} characters`, met: password.length >= PASSWORD_MIN_LENGTH },
    { id: 'number', label: 'A number', met: /\d/.test(password) },
    { id: 'lowercase', label: 'A lowercase letter', met: /[a-z]/.test(password) },
    { id: 'uppercase', label: 'An uppercase letter', met: /[A-Z]/.test(password) },
    { id: 'special', label: `A special character (${SPECIAL_CHARACTERS})`, met: SPECIAL_RE.test(password) },
    { id: 'match', label: 'Passwords match', met: password.length > 0 && password === confirm },
  ];
}

export function allRulesMet(password: string, confirm: string): boolean {
  return passwordRules(password, confirm).every((rule) => rule.met);
}

/** Rules other than the match, i.e. the strength of the password alone. */
export function strengthRulesMet(password: string): boolean {
  return passwordRules(password, password).every((rule) => rule.met);
}
