import { lazy, Suspense } from 'react';
import { Link } from 'react-router-dom';
import type { RecentSearch } from '../../api/types';
import { failureText } from '../../api/errors';
import { Banner } from '../../components/Banner';
import { Spinner } from '../../components/Spinner';
import { OccupantsTable } from '../../components/OccupantsTable';
import { CountyUncertainBadge } from '../../components/CountyUncertainBadge';
import { DataDates } from '../../components/DataDates';
import { formatScore, navigationState, toCard, type ResultCard } from '../../lib/resultView';
import { coverageOf, isCovered } from '../../lib/occupantCoverage';

// recharts is large: it loads with the first chart, never with the initial JS.
const PerilChart = lazy(() => import('../../components/PerilChart'));

/** The place photo of a search, through the server's photo route (the maps key stays on the server). */
function imageUrlOf(search: RecentSearch): string | null {
  const ref = search.result_data?.extra_info?.photos?.[0]?.photo_reference;
  return ref ? `/api/place-photo?ref=${encodeURIComponent(ref)}&maxwidth=400` : null;
}

function ResultCardView({ card, imageUrl, latest = false }: { card: ResultCard; imageUrl: string | null; latest?: boolean }) {
  return (
    <Link
      to={`/search-result/${encodeURIComponent(card.id)}`}
      state={navigationState(card, imageUrl)}
      className={`result-card${card.hasWarning ? ' result-card-warning' : ''}${latest ? ' result-card-latest' : ''}`}
    >
      <span className="result-card-head">
        <strong className="result-card-address">{card.address}</strong>
        {card.warning && (
          <span className="status-badge status-warning" data-testid="card-warning">
            <span aria-hidden="true">⚠ </span>
            {card.warning}
          </span>
        )}
        {card.lowConfidence && <CountyUncertainBadge />}
      </span>
      <span className="muted small">Searched {card.searched}</span>
      <dl className="result-card-facts">
        <div><dt>Occupants</dt><dd>{card.occupants}</dd></div>
        <div><dt>Vacancies</dt><dd>{card.vacancies ?? 'N/A'}</dd></div>
        <div><dt>Photos</dt><dd>{card.photos}</dd></div>
        <div><dt>Operation alerts</dt><dd>{card.operationAlerts}</dd></div>
        {card.totalScore !== 0 && (
          <div><dt>Total score</dt><dd>{formatScore(card.totalScore)}</dd></div>
        )}
        <div className="result-card-wide"><dt>NAICS</dt><dd>{card.naicsSummary}</dd></div>
        <div className="result-card-wide"><dt>Last Update</dt><dd><DataDates text={card.dateLastUpdated} /></dd></div>
      </dl>
      {card.top3ScoresCombined && <span className="top3 small">{card.top3ScoresCombined}</span>}
      {card.type === 'Error' && <span className="status-badge status-other">Error</span>}
    </Link>
  );
}

function CardSkeleton() {
  return (
    <div className="result-card skeleton-card" aria-hidden="true">
      <span className="skeleton skeleton-line skeleton-wide" />
      <span className="skeleton skeleton-line" />
      <span className="skeleton skeleton-line skeleton-wide" />
    </div>
  );
}

interface Props {
  latest: RecentSearch | null;
  others: RecentSearch[];
  loading: boolean;
  /** The list failed to load: its error replaces the empty-state text, which would contradict it. */
  error?: unknown;
}

/** Recent Single Searches: the Latest Result card and a scroll list of the others (SPEC §2, §4). */
export function RecentSearches({ latest, others, loading, error }: Props) {
  // What the occupant data covers, said once for the list (the latest answer's words).
  const covers = [latest, ...others].map((s) => s?.result_data?.occupant_coverage?.covers).find(Boolean);
  return (
    <section className="card recent-searches" aria-labelledby="recent-title" aria-busy={loading}>
      <h2 id="recent-title" className="card-title">
        Recent Single Searches
      </h2>
      {loading && (
        <div role="status" aria-label="Loading recent searches..." className="skeleton-list">
          <CardSkeleton />
          <CardSkeleton />
        </div>
      )}
      {!!error && <Banner kind="error">Error loading recent searches: {failureText(error)}</Banner>}
      {!loading && !error && !latest && (
        <p className="muted">No searches yet. Look up an address to see its occupants and risks.</p>
      )}
      {latest && (
        <>
          <h3 className="subtitle">Latest Result</h3>
          <ResultCardView card={toCard(latest)} imageUrl={imageUrlOf(latest)} latest />
          {latest.result_data && (
            <div className="latest-details">
              <OccupantsTable occupants={latest.result_data.occupants} caption="Occupants at the latest address" showStatus
                covered={isCovered(coverageOf(latest.result_data))} />
              <Suspense fallback={<Spinner label="Loading chart..." />}>
                <PerilChart perils={latest.result_data.perils} ratings={latest.result_data.ratings} />
              </Suspense>
            </div>
          )}
        </>
      )}
      {covers && <p className="muted small occupant-coverage" data-testid="occupant-coverage">{covers}</p>}
      {others.length > 0 && (
        <ul className="recent-list" aria-label="Earlier searches">
          {others.map((search) => (
            <li key={search.search_id}>
              <ResultCardView card={toCard(search)} imageUrl={imageUrlOf(search)} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
