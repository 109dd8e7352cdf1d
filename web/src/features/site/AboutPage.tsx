import { Link } from 'react-router-dom';
import { usePageTitle } from '../../components/usePageTitle';
import './site.css';

export const FEMA_STATEMENT =
  "This product uses the Federal Emergency Management Agency's National Risk Index dataset API or downloadable datasets but is not endorsed by FEMA. The Federal Government or FEMA cannot vouch for the data or analyses derived from these data after the data have been retrieved from the Agency's website(s).";

/** /about: what PerilScope is, and the data sources it must credit (shared/data/SOURCES.md). */
export default function AboutPage() {
  usePageTitle('About PerilScope');
  return (
    <div className="page site-page">
      <header className="page-header">
        <h1>About PerilScope</h1>
        <p className="muted lead">Property risk and occupancy data for the people who insure buildings.</p>
      </header>
      <section className="card">
        <h2 className="card-title">What we do</h2>
        <p>
          Underwriters, brokers, carriers and risk managers type a US address, or upload a file of thousands, and get back
          the businesses that operate there with their NAICS industry codes, the building&apos;s public record, and geo
          peril scores for 18 natural hazards with a composite score and the three highest risks.
        </p>
        <p>
          We show where each number comes from, and we show unknown values as unknown: no open source publishes
          vacancies or rental rates, so PerilScope does not invent them.
        </p>
        <Link to="/signup" className="btn btn-accent">Create an account</Link>
      </section>
      <section className="card" aria-labelledby="sources-title">
        <h2 id="sources-title" className="card-title">Data sources</h2>
        <div className="attribution">
          <h3>FEMA National Risk Index (v1.20, December 2025)</h3>
          <p>County scores for the 18 hazards and the composite risk score.</p>
          <p><strong>{FEMA_STATEMENT}</strong></p>
          <p>FEMA designed the National Risk Index for planning; it is not meant for decisions about a single property.</p>
        </div>
        <div className="attribution">
          <h3>ZIP codes</h3>
          <p>ZIP code data: simplemaps.com/data/us-zips (CC BY 4.0)</p>
          <p>Postal code data: GeoNames (geonames.org), CC BY 4.0</p>
        </div>
        <div className="attribution">
          <h3>Businesses and buildings</h3>
          <p>City of Seattle Open Data: active business licences and the 2016 building energy benchmarking records.</p>
          <p>DataSF: Registered Business Locations, San Francisco.</p>
        </div>
        <div className="attribution">
          <h3>Industry codes</h3>
          <p>North American Industry Classification System (NAICS) 2022, US Census Bureau.</p>
        </div>
      </section>
    </div>
  );
}
