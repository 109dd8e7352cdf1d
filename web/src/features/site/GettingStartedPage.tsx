import { Link } from 'react-router-dom';
import { DocsFrame } from './DocsFrame';

/** /docs/getting-started (SPEC §2). */
export default function GettingStartedPage() {
  return (
    <DocsFrame title="Getting Started" lead="From a new account to your first property report in a few minutes.">
      <section className="card">
        <h2 className="card-title">Key features</h2>
        <ul>
          <li>Risk assessment on 18 disaster types, with a composite score and the top three risks.</li>
          <li>Data visualization: a chart of every hazard score for the address.</li>
          <li>Batch processing: upload a CSV of addresses and follow the job as it runs.</li>
          <li>Detailed reports: occupants with NAICS codes, building details, and CSV exports.</li>
        </ul>
      </section>
      <section className="card">
        <h2 className="card-title">Who it is for</h2>
        <p>
          Insurers (carriers, MGAs, wholesalers, agents and brokers), underwriters, real estate investors, property
          management companies, risk management professionals and business continuity planners.
        </p>
      </section>
      <section className="card">
        <h2 className="card-title">Quick start</h2>
        <ol className="steps">
          <li><strong>Create an account</strong> with your email and a password on the <Link to="/signup">sign-up page</Link>.</li>
          <li><strong>Choose a subscription.</strong> New accounts start on the regular plan with 10 searches a month.</li>
          <li><strong>Search</strong> one address (street, city, state, ZIP) on the dashboard, or upload a CSV with the columns Street Address, City, State, Zip, Country.</li>
          <li><strong>Analyze the results:</strong> open a result for occupants, building details and the hazard chart, or open a batch export from your history.</li>
        </ol>
      </section>
    </DocsFrame>
  );
}
