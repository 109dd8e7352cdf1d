import { Link } from 'react-router-dom';
import type { RecentSearch } from '../../api/types';
import { OccupantsTable } from './OccupantsTable';
import { formatScore, navigationState, toCard, type ResultCard } from './resultView';
import { lazy, Suspense } from 'react';
import { Spinner } from '../../components/Spinner';

const PerilChart = lazy(() => import('./PerilChart'));

function ResultCardView({ card, latest = false }: { card: ResultCard; latest?: boolean }) {
  return (
    <Link
      to={`/search-result/${encodeURIComponent(card.id)}`}
      state={navigationState(card)}
      className={`result-card${card.hasWarning ? ' result-card-warning' : ''}${latest ? ' result-card-latest' : ''}`}
    >
      <strong className="result-card-address">{card.address}</strong>
      <span className="muted small">{card.dateLastUpdated}</span>
      <dl className="result-card-facts">
        <div><dt>Occupants</dt><dd>{card.occupants}</dd></div>
        <div><dt>Vacancies</dt><dd>{card.vacancies}</dd></div>
        <div><dt>Photos</dt><dd>{card.photos}</dd></div>
        <div><dt>Operation alerts</dt><dd>{card.operationAlerts}</dd></div>
        {card.totalScore > 0 && (
          <div><dt>Total score</dt><dd>{formatScore(card.totalScore)}</dd></div>
        )}
        <div><dt>NAICS</dt><dd>{card.naics_code}</dd></div>
      </dl>
      {card.top3ScoresCombined && <p className="top3 small">{card.top3ScoresCombined}</p>}
      {card.type === 'Error' && <span className="status-badge status-other">Error</span>}
    </Link>
  );
}

/** Recent Single Searches: the Latest Result card and a scroll list of the others (SPEC §2, §4). */
export function RecentSearches({ latest, others, loading }: { latest: RecentSearch | null; others: RecentSearch[]; loading: boolean }) {
  return (
    <section className="card recent-searches" aria-labelledby="recent-title">
      <h2 id="recent-title" className="card-title">
        Recent Single Searches
      </h2>
      {loading && <Spinner label="Loading recent searches..." />}
      {!loading && !latest && (
        <p className="muted">No searches yet. Look up an address to see its occupants and risks.</p>
      )}
      {latest && (
        <>
          <h3 className="subtitle">Latest Result</h3>
          <ResultCardView card={toCard(latest)} latest />
          {latest.result_data && (
            <div className="latest-details">
              <OccupantsTable occupants={latest.result_data.occupants} caption="Occupants at the latest address" />
              <Suspense fallback={<Spinner label="Loading chart..." />}>
                <PerilChart perils={latest.result_data.perils} />
              </Suspense>
            </div>
          )}
        </>
      )}
      {others.length > 0 && (
        <ul className="recent-list" aria-label="Earlier searches">
          {others.map((search) => (
            <li key={search.search_id}>
              <ResultCardView card={toCard(search)} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
