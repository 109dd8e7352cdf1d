import { Link } from 'react-router-dom';
import { LegalPage, type LegalSection } from './LegalPage';

const SHARED: [string, string][] = [
  ['Identifiers (name, email address, account ID)', 'None sold. Shared with our hosting, email and sign-in providers only to run the service.'],
  ['Commercial information (subscription and billing records)', 'None sold. Shared with our payment processor to bill you.'],
  ['Internet activity (pages used, searches made, device and log data)', 'None sold. Not shared for cross-context behavioural advertising.'],
  ['Property addresses you search or upload', 'None sold. Sent to the data providers we use to answer your search, only for that purpose.'],
  ['Sensitive personal information', 'Not collected.'],
];

const SECTIONS: LegalSection[] = [
  { id: 'updates', title: 'Updates to this policy', body: <p>We may change this policy as the service or the law changes. The date at the top shows the latest version. When a change is significant we tell account holders by email before it takes effect.</p> },
  { id: 'collected', title: 'Information we collect', body: (
    <ul>
      <li>Account details you give us: email address, display name, password (stored only as a salted argon2id hash) or the identity returned by a sign-in provider you choose.</li>
      <li>What you do in the service: the addresses you search, the files you upload, the exports you create, and how many searches you use each month.</li>
      <li>Technical data: IP address, browser type and request logs, kept to secure and operate the service.</li>
      <li>Messages you send us through the contact form.</li>
    </ul>
  ) },
  { id: 'purposes', title: 'How we use it and our legal basis', body: (
    <ul>
      <li>To provide the service you signed up for (performance of a contract): sign-in, searches, exports and your search history.</li>
      <li>To secure the service and prevent abuse (legitimate interest): rate limits, fraud checks and logs.</li>
      <li>To answer your messages and send service notices such as password resets (contract and legitimate interest).</li>
      <li>To meet legal obligations, such as tax records (legal obligation).</li>
      <li>Marketing email only with your consent, which you can withdraw at any time.</li>
    </ul>
  ) },
  { id: 'disclosures', title: 'Disclosures of information', body: <p>We share personal information only with service providers that process it for us under contract (hosting, email delivery, payment, sign-in providers), with data providers that receive the addresses needed to answer a search, when the law requires it, or as part of a merger or sale of the business, in which case this policy continues to apply. We do not sell personal information.</p> },
  { id: 'links', title: 'Links to other websites', body: <p>The service links to sites we do not run, such as the FEMA National Risk Index. Their own privacy policies apply there.</p> },
  { id: 'protection', title: 'How we protect information', body: <p>Connections are encrypted, passwords are hashed with argon2id, sessions use short-lived tokens, every stored search and export is visible only to its owner, and administrator rights are checked on the server for every request. No method of transmission or storage is perfectly secure, but we work to protect your information and will notify you of a breach as the law requires.</p> },
  { id: 'children', title: "Children's information", body: <p>The service is for people 18 or older. We do not knowingly collect information from anyone under 18; if we learn that we have, we delete it.</p> },
  { id: 'retention', title: 'How long we keep information', body: <p>We keep account information while your account is open, and searches and exports until you delete them or close your account. Logs are kept for a limited time for security. Billing records are kept as long as tax law requires.</p> },
  { id: 'california', title: "California residents' rights", body: (
    <>
      <p>If you live in California, the CCPA gives you these rights:</p>
      <ul>
        <li><strong>Right to know</strong> what personal information we collected, used and disclosed about you in the prior 12 months.</li>
        <li><strong>Right to delete</strong> personal information we collected from you, with the exceptions the law allows.</li>
        <li><strong>Right to correct</strong> inaccurate personal information.</li>
        <li><strong>Right to opt out</strong> of the sale or sharing of personal information. We do not sell or share it, so there is nothing to opt out of, but you may still ask.</li>
        <li>The right not to be treated differently for using these rights.</li>
      </ul>
      <p>We acknowledge a request within 10 days and answer within 45 days. We do not charge a fee unless requests are manifestly unfounded or excessive. We verify your identity before acting on a request, and you may use an authorised agent.</p>
      <div className="table-scroll">
        <table className="table">
          <caption>Categories of personal information sold or shared, and to whom, in the last 12 months</caption>
          <thead><tr><th scope="col">Category of personal information</th><th scope="col">Categories of recipients</th></tr></thead>
          <tbody>{SHARED.map(([category, recipients]) => <tr key={category}><td>{category}</td><td>{recipients}</td></tr>)}</tbody>
        </table>
      </div>
    </>
  ) },
  { id: 'other-rights', title: 'Rights in other jurisdictions', body: (
    <>
      <p>Depending on where you live (for example other US states, the UK or the EU), you may have the right to:</p>
      <ul>
        <li>access the personal information we hold about you;</li>
        <li>have it deleted or corrected;</li>
        <li>opt out of targeted advertising;</li>
        <li>withdraw consent where we rely on consent;</li>
        <li>receive your information in a portable format;</li>
        <li>appeal our decision on your request;</li>
        <li>complain to your data protection regulator.</li>
      </ul>
    </>
  ) },
  { id: 'contact', title: 'How to contact us', body: <p>Send privacy questions and requests through our <Link to="/contact">contact form</Link>. Say which right you want to use; we will reply from our privacy team.</p> },
];

/** /privacy: eleven sections in our own words (SPEC §1, §2, §9). */
export default function PrivacyPage() {
  return (
    <LegalPage
      title="Privacy Policy"
      lastUpdated="04/04/2025"
      intro={<p>This policy explains what personal information PerilScope collects, why, whom we share it with, and the rights you have over it.</p>}
      sections={SECTIONS}
    />
  );
}
