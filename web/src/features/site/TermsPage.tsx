import { Link } from 'react-router-dom';
import { LegalPage, type LegalSection } from './LegalPage';

/** The 26 sections as [title, text]; every point and number of SPEC §1 and §9 is covered. */
const TERMS: [string, string][] = [
  ['Who we are', 'PerilScope is operated by a limited liability company organised in the State of Connecticut ("we", "us"). These terms are an agreement between you and us.'],
  ['Accepting these terms', 'By creating an account or using the service you accept these terms. If you use it for an organisation, you confirm you may bind that organisation.'],
  ['Eligibility', 'You must be 18 or older to use the service.'],
  ['Your account', 'Keep your password secret and your details accurate. You are responsible for activity under your account; tell us at once if you suspect misuse.'],
  ['What the service provides', 'Property information for an address: businesses at the address, building details, and geo peril scores for 18 natural hazards drawn from public sources such as the FEMA National Risk Index.'],
  ['Information, not advice', 'Results are information to support your own judgement. They are not insurance, engineering, legal or financial advice, and FEMA intends its index for planning, not for decisions about a single property.'],
  ['Data accuracy', 'Public data can be incomplete or out of date. Where a value is unknown we show it as unknown. We do not warrant that any result is complete or accurate.'],
  ['Permitted use', 'You may use results for your own personal or internal organisational purposes.'],
  ['No resale of data', 'You may not resell, sublicense, publish or redistribute the data or results, or build a competing database from them.'],
  ['Acceptable use', 'Do not break the law, probe or overload the service, get around limits or access controls, or access other users\u2019 data.'],
  ['Search limits and API rate limits', 'Plans include a monthly number of searches. Documented API limits are 100 requests per day on Standard, 1,000 per day on Premium, and custom limits on Enterprise.'],
  ['Subscriptions and automatic billing', 'Subscriptions renew and bill automatically each month or each year, as you chose, until you cancel. Cancelling stops the next renewal.'],
  ['No refunds', 'Purchases are non-refundable except where the law requires a refund.'],
  ['Taxes', 'Sales tax is calculated and charged automatically where it applies.'],
  ['Price changes', 'We give notice before a price change takes effect at your next renewal.'],
  ['Intellectual property', 'The service, its software and its compilation of data are ours or our licensors\u2019. Public data remains subject to its sources\u2019 terms and attributions.'],
  ['Your content', 'You keep the rights to addresses and files you upload. You let us process them to provide the service.'],
  ['Third-party services', 'Sign-in providers and data providers are run by others under their own terms. We are not responsible for them.'],
  ['Suspension and termination', 'We may suspend or close accounts that break these terms. You may close your account at any time.'],
  ['Disclaimer of warranties', 'The service is provided "as is" and "as available", without warranties of any kind, to the extent the law allows.'],
  ['Limitation of liability', 'To the extent the law allows, we are not liable for indirect or consequential losses, and our total liability is limited to what you paid us in the 12 months before the claim.'],
  ['Indemnity', 'You will compensate us for claims arising from your breach of these terms or your misuse of the service.'],
  ['Binding individual arbitration', 'Disputes are resolved by binding arbitration on an individual basis, not in class or representative actions. Before starting arbitration, a party must send a written notice of the dispute and allow 30 days to resolve it informally.'],
  ['Arbitration procedure and fees', 'The filing fee for a claimant is $200; we pay the remaining fees, and if the administrator requires a larger payment from you we will pay up to $2,000 of it. Requests for us to pay fees must be made within 14 days. For consumer claims of $10,000 or less you choose whether the hearing is by documents only, by phone, or in person. An award on a claim over $75,000 may be appealed to a panel of three arbitrators within 30 days, and the panel decides within 120 days.'],
  ['Governing law', 'These terms are governed by the laws of the State of Connecticut, without regard to conflict-of-law rules.'],
  ['Changes and contact', 'We may update these terms and will tell account holders of material changes before they apply. Questions go through our contact form.'],
];

const SECTIONS: LegalSection[] = TERMS.map(([title, text], index) => ({
  id: `section-${index + 1}`,
  title,
  body: <p>{text}</p>,
}));

/** /terms: Terms and Conditions, 26 numbered sections (SPEC §1, §2, §9). */
export default function TermsPage() {
  return (
    <LegalPage
      title="Terms and Conditions"
      intro={<p>Please read these terms before using PerilScope. Questions? <Link to="/contact">Contact us</Link>.</p>}
      sections={SECTIONS}
    />
  );
}
