import { lazy, Suspense, type ReactNode } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router-dom';
import { useGetSearchResultQuery } from '../../api/api';
import type { Occupant, OccupantCoverage, RecentSearch, ResultLocation, ScoreReceipt, TractScores } from '../../api/types';
import { errorMessage, failureText } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';
import { DataDates } from '../../components/DataDates';
import { usePageTitle } from '../../components/usePageTitle';
import { OccupantsTable } from '../../components/OccupantsTable';
import { buildingNaics, closedCount, formatDate, formatScore, parseAddressText, readNavState, type ResultNavState } from '../../lib/resultView';
import { dataDates, isLowConfidence } from '../../lib/location';
import { NOT_COVERED, coverageOf, isCovered, occupantCounts } from '../../lib/occupantCoverage';
import { groupNavState, parseExportGroupId } from '../../lib/exports/groups';
import { useGroupDetails, type GroupDetails } from '../../lib/exports/detailed';
import { useDownload } from '../../lib/download';
import { useExportFile } from '../../lib/exports/exportFile';
import { InfoTip } from './InfoTip';
import { CountyUncertainWarning, LocationSection } from './LocationSection';
import { ReceiptSection } from './ReceiptSection';
import { TractSection } from './TractSection';

// recharts loads with the page that draws it, never with the initial JS.
const PerilChart = lazy(() => import('../../components/PerilChart'));

export const NO_ID = 'No search result ID provided.';
export const NOT_FOUND = 'Could not load result data.';
export const LOAD_FAILED = 'Failed to load search result details.';
export const BAD_DATA = 'Error processing data. Please try refreshing.';
export const LOADING = 'Loading search result...';
const TOTAL_TOOLTIP = 'Composite of the geo peril scores for all 18 disasters (FEMA National Risk Index), 0 to 100.';
const TOP3_TOOLTIP = 'Top three disaster geo peril';

/** What the page shows: from the stored search, or (while it loads) from the card's navigation state. */
interface ResultView {
  address: string;
  details: [string, string][];
  vacancies: number | null;
  rentalRate: string | null;
  /** null: no occupant source covers the address. */
  occupants: number | null;
  photos: number;
  /** What the occupant data covers; null when the answer does not say (the counts then stand). */
  coverage: OccupantCoverage | null;
  /** The date of the data (occupants, NRI), never of the search. */
  lastUpdate: string;
  /** When the search was made; null for an export group. */
  searched: string | null;
  occupantDetails: Occupant[];
  totalScore: number | null;
  top3: string;
  perils: Record<string, number | null> | null;
  ratings: Record<string, string | null> | null;
  receipt: ScoreReceipt | null;
  location: ResultLocation | null;
  /** The census tract's scores, beside the county's; null when unknown. */
  tract: TractScores | null;
}

function fromServer(search: RecentSearch): ResultView | null {
  const result = search.result_data;
  if (!result) return null;
  const text = parseAddressText(result.address);
  const coverage = coverageOf(result);
  return {
    address: text.address,
    details: text.details,
    vacancies: result.vacancies ?? text.vacancies,
    rentalRate: result.rental_rate ?? text.rentalRate,
    occupants: result.total_results,
    photos: result.extra_info?.photos?.length ?? 0,
    coverage,
    lastUpdate: dataDates(result.receipt, { occupantsCovered: isCovered(coverage) }),
    searched: formatDate(search.timestamp),
    occupantDetails: result.occupants ?? search.filtered_results ?? [],
    totalScore: result.Total_Score,
    top3: result.Top3_Scores_Combined ?? '',
    perils: result.perils ?? null,
    ratings: result.ratings ?? null,
    receipt: result.receipt ?? null,
    location: result.location ?? null,
    tract: result.tract ?? null,
  };
}

/** A card's state; an export group's adds what its detailed export holds (scores, receipt, location). */
function fromNavState(state: ResultNavState, details: GroupDetails | null = null): ResultView {
  const coverage = details?.occupantCoverage ?? state.occupantCoverage ?? null;
  return {
    address: state.address,
    details: state.buildingDetails ?? [],
    vacancies: state.vacancies,
    rentalRate: null,
    occupants: isCovered(coverage) ? state.occupantDetails.length : null,
    photos: state.photosCount,
    coverage,
    lastUpdate: details?.receipt ? dataDates(details.receipt, { occupantsCovered: isCovered(coverage) }) : state.dateLastUpdated,
    searched: null,
    occupantDetails: state.occupantDetails,
    totalScore: state.totalScore,
    top3: state.top3ScoresCombined,
    perils: details?.perils ?? null,
    ratings: details?.ratings ?? null,
    receipt: details?.receipt ?? null,
    location: details?.location ?? null,
    tract: details?.tract ?? null,
  };
}

function ErrorPanel({ text }: { text: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  // Opened directly there is no page to go back to: go to the dashboard instead.
  usePageTitle('Search Result');
  const goBack = () => (location.key === 'default' ? navigate('/data-processing') : navigate(-1));
  return (
    <div className="page">
      <header className="page-header result-header">
        <h1>Search Result</h1>
        <Link to="/data-processing" className="btn btn-outline">
          Back to Search List
        </Link>
      </header>
      <div className="error-panel" role="alert">
        <p>{text}</p>
        <button type="button" className="btn btn-outline" onClick={goBack}>
          Go Back
        </button>
      </div>
    </div>
  );
}

/**
 * /search-result/{id}: a stored search, loaded from the server, or one group of a batch export,
 * read from the export file. The link's navigation state shows at once while the data loads.
 */
export default function SearchResultPage() {
  const { id } = useParams();
  if (!id) return <ErrorPanel text={NO_ID} />;
  const exportGroup = parseExportGroupId(id);
  if (exportGroup) return <ExportGroupResult key={id} id={id} filename={exportGroup.filename} index={exportGroup.index} />;
  return <StoredSearchResult key={id} id={id} />;
}

/** SPEC §8: 'Export error: {...}', the {...} a sentence a user can act on. */
function exportErrorText(error: unknown): string | null {
  return error === null ? null : `Export error: ${errorMessage(error, failureText(error))}`;
}

interface StepProps {
  previous: string | null;
  next: string | null;
  exporting: boolean;
  onExport: () => void;
  refreshing: boolean;
  onRefresh: () => void;
}

/** Previous, Export, Refresh, Next (SPEC §2), working for real. */
function ResultActions({ previous, next, exporting, onExport, refreshing, onRefresh }: StepProps) {
  const navigate = useNavigate();
  const go = (target: string | null) => target && navigate(`/search-result/${encodeURIComponent(target)}`);
  return (
    <div className="button-row">
      <button type="button" className="btn btn-outline" disabled={!previous} onClick={() => go(previous)}>
        Previous
      </button>
      <button type="button" className="btn btn-outline" onClick={onExport} disabled={exporting}>
        {exporting ? 'Preparing...' : 'Export'}
      </button>
      <button type="button" className="btn btn-outline" onClick={onRefresh} disabled={refreshing}>
        {refreshing ? 'Refreshing...' : 'Refresh'}
      </button>
      <button type="button" className="btn btn-outline" disabled={!next} onClick={() => go(next)}>
        Next
      </button>
    </div>
  );
}

function StoredSearchResult({ id }: { id: string }) {
  const location = useLocation();
  // Always from the server, even when this id was seen a moment ago (Refresh refetches too).
  const { currentData, error, isFetching, refetch } = useGetSearchResultQuery(id, { refetchOnMountOrArgChange: true });
  const { busy, error: exportError, download } = useDownload();
  const passed = readNavState(location.state, id);

  const view = currentData ? fromServer(currentData.search) : passed ? fromNavState(passed) : null;
  usePageTitle(view ? view.address : 'Search Result');

  if (error && !isFetching) {
    const status = (error as { status?: unknown }).status;
    return <ErrorPanel text={status === 404 ? NOT_FOUND : LOAD_FAILED} />;
  }
  if (currentData && !view) return <ErrorPanel text={BAD_DATA} />;
  if (!view) return <LoadingPage />;

  const loaded = !!currentData;
  return (
    <ResultLayout view={view} loading={!loaded} busy={isFetching} error={exportErrorText(exportError)} showDetails={loaded}>
      <ResultActions
        previous={currentData?.previous_id ?? null}
        next={currentData?.next_id ?? null}
        exporting={busy}
        onExport={() => void download(`/api/search-results/${encodeURIComponent(id)}/export`, `perilscope-search-${id.slice(0, 8)}.csv`)}
        refreshing={isFetching && loaded}
        onRefresh={() => void refetch()}
      />
    </ResultLayout>
  );
}

function ExportGroupResult({ id, filename, index }: { id: string; filename: string; index: number }) {
  const location = useLocation();
  const passed = readNavState(location.state, id);
  // The card's state shows at once. The file is read too (from the viewer's cache when it is
  // there), so Previous/Next know the group count however the page was opened.
  const { load, reload } = useExportFile(filename, { reuseCached: !!passed });
  const details = useGroupDetails(filename, index);
  const { busy, error: exportError, download } = useDownload();
  const group = load.state === 'loaded' ? load.groups[index] : undefined;
  const view = group ? fromNavState(groupNavState(group, id), details) : passed ? fromNavState(passed, details) : null;
  usePageTitle(view ? view.address : 'Search Result');

  if (load.state === 'error' && !passed) return <ErrorPanel text={load.message || LOAD_FAILED} />;
  if (load.state === 'loaded' && !group) return <ErrorPanel text={NOT_FOUND} />;
  if (!view) return <LoadingPage />;

  const groupCount = load.state === 'loaded' ? load.groups.length : null;
  const stepTo = (target: number) => `export:${filename}:${target}`;
  return (
    <ResultLayout view={view} loading={load.state === 'loading'} busy={load.state === 'loading'} error={exportErrorText(exportError)} showDetails>
      <p className="muted small">From the batch export {filename}, address group {index + 1}{groupCount ? ` of ${groupCount}` : ''}.</p>
      <ResultActions
        previous={index > 0 ? stepTo(index - 1) : null}
        next={groupCount !== null && index + 1 < groupCount ? stepTo(index + 1) : null}
        exporting={busy}
        onExport={() => void download(`/api/download/${encodeURIComponent(filename)}`, filename)}
        refreshing={load.state === 'loading'}
        onRefresh={reload}
      />
    </ResultLayout>
  );
}

function LoadingPage() {
  return (
    <div className="page">
      <Spinner label={LOADING} />
    </div>
  );
}

interface LayoutProps {
  view: ResultView;
  loading: boolean;
  busy: boolean;
  error: string | null;
  showDetails: boolean;
  children: ReactNode;
}

function ResultLayout({ view, loading, busy, error, showDetails, children }: LayoutProps) {
  const counts = occupantCounts(
    { occupants: view.occupants, photos: view.photos, operationAlerts: closedCount(view.occupantDetails) },
    view.coverage,
  );
  const overview: [string, ReactNode][] = [
    ['Vacancies', view.vacancies ?? 'N/A'],
    ['Rental Rate', view.rentalRate ?? 'N/A'],
    ['Occupants', counts.occupants],
    ['Photos', counts.photos],
    ['Operation alerts', counts.operationAlerts],
    ['NAICS', isCovered(view.coverage) ? buildingNaics(view.occupantDetails) : NOT_COVERED],
    ['Last Update', <DataDates text={view.lastUpdate} />],
    ...(view.searched ? [['Searched', view.searched] as [string, string]] : []),
  ];
  const { receipt, location } = view;

  return (
    <div className="page search-result" aria-busy={busy}>
      <header className="page-header result-header">
        <h1>{view.address}</h1>
        <Link to="/data-processing" className="btn btn-outline">
          Back to Search List
        </Link>
      </header>
      {loading && <Spinner size="sm" label={LOADING} />}
      {error && <Banner kind="error">{error}</Banner>}
      <div className="result-columns">
        <div className="result-left">
          <section className="card" aria-labelledby="overview-title">
            <h2 id="overview-title" className="card-title">Address Overview</h2>
            <dl className="kv-grid">
              {overview.map(([key, value]) => (
                <div key={key}><dt>{key}</dt><dd>{value}</dd></div>
              ))}
            </dl>
            {/* What the occupant data covers, said once on the page. */}
            {view.coverage?.covers && <p className="muted small occupant-coverage" data-testid="occupant-coverage">{view.coverage.covers}</p>}
          </section>
          {showDetails && (
            <section className="card" aria-labelledby="building-title">
              <h2 id="building-title" className="card-title">Building Details</h2>
              {view.details.length === 0 ? (
                <p className="muted">No building record for this address.</p>
              ) : (
                <dl className="kv-grid">
                  {view.details.map(([key, value]) => (
                    <div key={key}><dt>{key}</dt><dd>{value === 'Unknown' ? 'N/A' : value}</dd></div>
                  ))}
                </dl>
              )}
            </section>
          )}
          {location && <LocationSection location={location} geocodeMatch={receipt?.geocode_match ?? null} />}
          <section className="card" aria-labelledby="risk-title">
            <h2 id="risk-title" className="card-title">Risk Analysis</h2>
            {location && isLowConfidence(location) && <CountyUncertainWarning location={location} />}
            <p className="label-row">
              <span>Total geo-peril score</span>
              <InfoTip label="About the total geo-peril score" text={TOTAL_TOOLTIP} />
              <strong className="total-score" data-testid="total-score">{formatScore(view.totalScore)}</strong>
            </p>
            <p className="label-row">
              <span>Top 3 Risks</span>
              <InfoTip label="About the top 3 risks" text={TOP3_TOOLTIP} />
            </p>
            {view.top3 ? (
              <ol className="top3-list" aria-label="Top 3 Risks">
                {view.top3.split('\n').filter(Boolean).map((line) => <li key={line}>{line}</li>)}
              </ol>
            ) : (
              <p className="muted">N/A</p>
            )}
            {view.perils && (
              <Suspense fallback={<Spinner label="Loading chart..." />}>
                <PerilChart perils={view.perils} ratings={view.ratings} />
              </Suspense>
            )}
          </section>
          {view.tract && <TractSection tract={view.tract} />}
          {receipt && <ReceiptSection receipt={receipt} />}
        </div>
        <section className="card result-right" aria-labelledby="occupants-title">
          <h2 id="occupants-title" className="card-title">Occupant Detail</h2>
          <OccupantsTable occupants={view.occupantDetails} covered={isCovered(view.coverage)} />
          {children}
        </section>
      </div>
    </div>
  );
}
