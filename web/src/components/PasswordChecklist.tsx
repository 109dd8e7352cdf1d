import { passwordRules } from '../lib/passwordRules';

interface PasswordChecklistProps {
  password: string;
  confirm: string;
  id?: string;
}

/** Live list of the password requirements, each marked met or not met. */
export function PasswordChecklist({ password, confirm, id }: PasswordChecklistProps) {
  const rules = passwordRules(password, confirm);
  return (
    <div className="checklist" id={id}>
      <p className="checklist-title">Password requirements</p>
      <ul aria-label="Password requirements">
        {rules.map((rule) => (
          <li key={rule.id} className={rule.met ? 'met' : 'unmet'} data-met={rule.met ? 'true' : 'false'}>
            <span className="checklist-mark" aria-hidden="true">
              {rule.met ? '✓' : '○'}
            </span>
            <span>{rule.label}</span>
            <span className="visually-hidden">{rule.met ? ' (met)' : ' (not met)'}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
