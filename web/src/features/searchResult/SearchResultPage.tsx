import { lazy, Suspense, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { useAppSelector } from '../../app/hooks';
import { apiUrl } from '../../api/url';
import { useGetSearchResultQuery } from '../../api/api';
import { Banner } from '../../components/Banner';
import { PageSpinner, Spinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { selectAccessToken } from '../auth/authSlice';
import { OccupantsTable } from '../search/OccupantsTable';
import { formatDate, formatScore, parseAddressText } from '../search/resultView';

const PerilChart = lazy(() => import('../search/PerilChart'));

const TOTAL_TOOLTIP = 'Composite of the geo peril scores for all 18 disasters (FEMA National Risk Index).';
const TOP3_TOOLTIP = 'Top three disaster geo peril';

function ErrorPanel({ text }: { text: string }) {
  const navigate = useNavigate();
  return (
    <div className="page">
      <div className="error-panel" role="alert">
        <p>{text}</p>
        <button type="button" className="btn btn-outline" onClick={() => navigate(-1)}>
          Go Back
        </button>
      </div>
    </div>
  );
}

/** /search-result/{id}: one stored search, always loaded from the server (no made-up data). */
export default function SearchResultPage() {
  const { id } = useParams();
  if (!id) return <ErrorPanel text="No search result ID provided." />;
  return <SearchResultView id={id} />;
}

function SearchResultView({ id }: { id: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  const token = useAppSelector(selectAccessToken);
  const { data, error, isLoading, isFetching, refetch } = useGetSearchResultQuery(id);
  const [exportState, setExportState] = useState<'idle' | 'preparing' | 'error'>('idle');
  const passed = (location.state as { id?: string; address?: string } | null) ?? null;
  const result = data?.search.result_data ?? null;
  const text = parseAddressText(result?.address);
  usePageTitle(result ? text.address : 'Search Result');

  if (isLoading) {
    // Navigation state for this id lets the header show at once while the stored search loads.
    return (
      <div className="page">
        {passed?.id === id && passed.address && <h1>{passed.address}</h1>}
        <PageSpinner label="Loading search result..." />
      </div>
    );
  }
  if (error) {
    const status = (error as { status?: number }).status;
    return <ErrorPanel text={status === 404 ? 'Could not load result data.' : 'Failed to load search result details.'} />;
  }
  if (!data || !result) return <ErrorPanel text="Error processing data. Please try refreshing." />;

  async function exportCsv() {
    setExportState('preparing');
    try {
      const response = await fetch(apiUrl(`/api/search-results/${encodeURIComponent(id)}/export`), {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        credentials: 'include',
      });
      if (!response.ok) throw new Error(String(response.status));
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `perilscope-search-${id.slice(0, 8)}.csv`;
      link.click();
      URL.revokeObjectURL(url);
      setExportState('idle');
    } catch {
      setExportState('error');
    }
  }

  const receipt = result.receipt;
  const overview: [string, string | number][] = [
    ['Vacancies', text.vacancies ?? 'N/A'],
    ['Rental Rate', text.rentalRate ?? 'N/A'],
    ['Occupants', result.total_results],
    ['Photos', result.extra_info?.photos?.length ?? 0],
    ['Last Update', formatDate(data.search.timestamp)],
  ];

  return (
    <div className="page search-result">
      <header className="page-header result-header">
        <h1>{text.address}</h1>
        <Link to="/data-processing" className="btn btn-outline">
          Back to Search List
        </Link>
      </header>
      {exportState === 'error' && <Banner kind="error">Export error: the file could not be prepared.</Banner>}
      <div className="result-columns">
        <div className="result-left">
          <section className="card" aria-labelledby="overview-title">
            <h2 id="overview-title" className="card-title">Address Overview</h2>
            <dl className="kv-grid">
              {overview.map(([key, value]) => (
                <div key={key}><dt>{key}</dt><dd>{value}</dd></div>
              ))}
            </dl>
          </section>
          <section className="card" aria-labelledby="building-title">
            <h2 id="building-title" className="card-title">Building Details</h2>
            {text.details.length === 0 ? (
              <p className="muted">No building record for this address.</p>
            ) : (
              <dl className="kv-grid">
                {text.details.map(([key, value]) => (
                  <div key={key}><dt>{key}</dt><dd>{value === 'Unknown' ? 'N/A' : value}</dd></div>
                ))}
              </dl>
            )}
          </section>
          <section className="card" aria-labelledby="risk-title">
            <h2 id="risk-title" className="card-title">Risk Analysis</h2>
            <p>
              <span title={TOTAL_TOOLTIP}>Total geo-peril score</span>:{' '}
              <strong className="total-score">{formatScore(result.Total_Score)}</strong>
            </p>
            <p title={TOP3_TOOLTIP}>Top 3 Risks</p>
            <ol className="top3-list">
              {result.Top3_Scores_Combined.split('\n').filter(Boolean).map((line) => <li key={line}>{line}</li>)}
            </ol>
            <Suspense fallback={<Spinner label="Loading chart..." />}>
              <PerilChart perils={result.perils} />
            </Suspense>
          </section>
          <section className="card receipt" aria-labelledby="receipt-title">
            <h2 id="receipt-title" className="card-title">Score receipt</h2>
            <dl className="kv-grid small">
              <div><dt>NRI version</dt><dd>{receipt.nri_version ?? 'N/A'}</dd></div>
              <div><dt>County</dt><dd>{receipt.county_name ? `${receipt.county_name}, ${receipt.state} (${receipt.county_fips})` : 'N/A'}</dd></div>
              <div><dt>Geography level</dt><dd>{receipt.geography_level ?? 'N/A'}</dd></div>
              <div><dt>Geocode match</dt><dd>{receipt.geocode_match}</dd></div>
              {Object.entries(receipt.providers).map(([role, name]) => (
                <div key={role}><dt>{role.replace('_', ' ')}</dt><dd>{name ?? 'none'}</dd></div>
              ))}
              <div><dt>Scored at</dt><dd>{new Date(receipt.scored_at).toLocaleString()}</dd></div>
            </dl>
            <p className="muted small">
              FEMA's National Risk Index is meant for planning, not for decisions about a single property.
            </p>
          </section>
        </div>
        <section className="card result-right" aria-labelledby="occupants-title">
          <h2 id="occupants-title" className="card-title">Occupant Detail</h2>
          <OccupantsTable occupants={result.occupants} />
          <div className="button-row">
            <button type="button" className="btn btn-outline" disabled={!data.previous_id}
              onClick={() => data.previous_id && navigate(`/search-result/${encodeURIComponent(data.previous_id)}`)}>
              Previous
            </button>
            <button type="button" className="btn btn-outline" onClick={exportCsv} disabled={exportState === 'preparing'}>
              {exportState === 'preparing' ? 'Preparing...' : 'Export'}
            </button>
            <button type="button" className="btn btn-outline" onClick={() => void refetch()} disabled={isFetching}>
              {isFetching ? 'Refreshing...' : 'Refresh'}
            </button>
            <button type="button" className="btn btn-outline" disabled={!data.next_id}
              onClick={() => data.next_id && navigate(`/search-result/${encodeURIComponent(data.next_id)}`)}>
              Next
            </button>
          </div>
        </section>
      </div>
    </div>
  );
}
