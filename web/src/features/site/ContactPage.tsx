import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Banner } from '../../components/Banner';
import { usePageTitle } from '../../components/usePageTitle';
import { errorMessage, errorStatus } from '../../api/errors';
import { validateEmail } from '../../lib/validation';
import { useSendContactMessageMutation } from './contactApi';
import { productInterest } from './products';
import './site.css';

export const MAX_MESSAGE = 5000;
const SENT = 'Message sent successfully!';
const FAILED = 'Failed to send message. Please try again.';
const NETWORK = 'An error occurred. Please try again later.';

type Fields = { firstName: string; lastName: string; email: string; message: string };
type Result = { kind: 'success' | 'error'; text: string } | null;

function problems(fields: Fields): Partial<Record<keyof Fields, string>> {
  const found: Partial<Record<keyof Fields, string>> = {};
  if (!fields.firstName.trim()) found.firstName = 'Please enter your first name';
  if (!fields.lastName.trim()) found.lastName = 'Please enter your last name';
  const emailProblem = validateEmail(fields.email);
  if (emailProblem) found.email = emailProblem;
  if (!fields.message.trim()) found.message = 'Please enter a message';
  return found;
}

/** /contact: the message goes through POST /api/send-email to the company's own recipients. */
export default function ContactPage() {
  usePageTitle('Contact Us');
  const [params] = useSearchParams();
  const interest = productInterest(params.get('product'), params.get('subproduct'));
  const [fields, setFields] = useState<Fields>({
    firstName: '',
    lastName: '',
    email: '',
    message: interest ? `I would like information about ${interest}.` : '',
  });
  const [errors, setErrors] = useState<Partial<Record<keyof Fields, string>>>({});
  const [send, { isLoading: sending }] = useSendContactMessageMutation();
  const [result, setResult] = useState<Result>(null);

  const set = (key: keyof Fields) => (event: { target: { value: string } }) => setFields({ ...fields, [key]: event.target.value });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = problems(fields);
    setErrors(found);
    if (Object.keys(found).length) return;
    setResult(null);
    const name = `${fields.firstName.trim()} ${fields.lastName.trim()}`;
    try {
      const answer = await send({
        subject: `Contact form: ${name}${interest ? ` (${interest})` : ''}`,
        body: `Name: ${name}\nEmail: ${fields.email.trim()}\n\n${fields.message.trim()}`,
        reply_to: fields.email.trim(),
      }).unwrap();
      if (answer.status === 'success') {
        setResult({ kind: 'success', text: SENT });
        setFields({ firstName: '', lastName: '', email: '', message: '' });
      } else {
        setResult({ kind: 'error', text: answer.error ?? answer.message ?? FAILED });
      }
    } catch (failure) {
      // SPEC §8: a server failure shows its message; no answer at all is a network error.
      const answered = typeof errorStatus(failure) === 'number';
      setResult({ kind: 'error', text: answered ? errorMessage(failure, FAILED, ['error', 'message']) : NETWORK });
    }
  }

  const field = (key: keyof Fields, label: string, type = 'text', autoComplete?: string) => (
    <div className="field">
      <label htmlFor={`contact-${key}`}>{label}</label>
      <input
        id={`contact-${key}`}
        className="input"
        type={type}
        autoComplete={autoComplete}
        value={fields[key]}
        onChange={set(key)}
        disabled={sending}
        required
        aria-invalid={!!errors[key]}
        aria-describedby={errors[key] ? `contact-${key}-error` : undefined}
      />
      {errors[key] && <p id={`contact-${key}-error`} className="field-error">{errors[key]}</p>}
    </div>
  );

  return (
    <div className="page site-page narrow-page">
      <header className="page-header">
        <h1>Contact Us</h1>
        <p className="muted lead">Questions about PerilScope, a product, or your account? We reply within one business day.</p>
      </header>
      {result && <Banner kind={result.kind}>{result.text}</Banner>}
      <form className="card form contact-form" onSubmit={(event) => void submit(event)} noValidate>
        <div className="site-grid">
          {field('firstName', 'First name', 'text', 'given-name')}
          {field('lastName', 'Last name', 'text', 'family-name')}
        </div>
        {field('email', 'Email', 'email', 'email')}
        <div className="field">
          <label htmlFor="contact-message">Message</label>
          <textarea
            id="contact-message"
            value={fields.message}
            onChange={set('message')}
            maxLength={MAX_MESSAGE}
            disabled={sending}
            required
            aria-invalid={!!errors.message}
            aria-describedby="contact-message-count"
          />
          {errors.message && <p className="field-error">{errors.message}</p>}
          <p id="contact-message-count" className="muted small char-count">{fields.message.length} / {MAX_MESSAGE}</p>
        </div>
        <button type="submit" className="btn btn-accent" disabled={sending}>{sending ? 'Sending...' : 'Send message'}</button>
      </form>
    </div>
  );
}
