import { HAZARDS } from '../../lib/resultView';
import { DocsFrame } from './DocsFrame';

/** SPEC §2: 20 rows, Sort, Field Name, Field Alias. */
export const DICTIONARY: { field: string; alias: string }[] = [
  { field: 'ZIP', alias: 'ZIP code' },
  ...HAZARDS.map((hazard) => ({ field: `${hazard.code}_Score`, alias: `${hazard.name} score` })),
  { field: 'Total_Score', alias: 'Composite score of all 18 hazards' },
];

/** /docs/features: the geo peril data dictionary. */
export default function FeaturesPage() {
  return (
    <DocsFrame title="Geo peril Dictionary" lead="Every field of the geo peril score, as it appears in results and exports.">
      <section className="card">
        <div className="table-scroll">
          <table className="table dictionary">
            <caption className="visually-hidden">Geo peril data dictionary</caption>
            <thead><tr><th scope="col">Sort</th><th scope="col">Field Name</th><th scope="col">Field Alias</th></tr></thead>
            <tbody>
              {DICTIONARY.map((row, index) => (
                <tr key={row.field}><td>{index + 1}</td><td className="endpoint">{row.field}</td><td>{row.alias}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="card">
        <h2 className="card-title">Notes</h2>
        <ul>
          <li>Scores run from 0 to 100; higher means higher risk relative to other US counties. They come from the FEMA National Risk Index v1.20 (December 2025) for the county of the address&apos;s ZIP code.</li>
          <li>RFLD_Score (riverine flooding) is read from NRI v1.20&apos;s IFLD, Inland Flooding, which replaced riverine flooding in that version.</li>
          <li>A hazard that does not apply to a county (avalanche in Florida, for example) is blank (null), never 0.</li>
          <li>Total_Score is FEMA&apos;s composite risk score, which combines all 18 hazards.</li>
        </ul>
      </section>
    </DocsFrame>
  );
}
