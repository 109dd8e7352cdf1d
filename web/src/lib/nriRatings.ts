/**
 * FEMA's National Risk Index keeps three answers apart where a hazard has no ordinary score, and
 * so do we, with FEMA's words (STYLE §10): Not Applicable (the hazard does not occur there),
 * Insufficient Data (FEMA makes no estimate) and No Rating (FEMA rates it 0). A missing rating is
 * none of them: we do not know.
 */
export const NOT_APPLICABLE = 'Not Applicable';
export const INSUFFICIENT_DATA = 'Insufficient Data';
export const NO_RATING = 'No Rating';

/** What each of FEMA's words means, said beside it. */
export const RATING_MEANING: Record<string, string> = {
  [NOT_APPLICABLE]: 'the hazard does not occur here',
  [INSUFFICIENT_DATA]: 'FEMA has too little data to estimate it',
  [NO_RATING]: 'FEMA rates it 0',
};

/** A hazard's score to `digits` places; without one, 'N/A' only when FEMA says Not Applicable, else a dash. */
export function hazardScoreText(score: number | null | undefined, rating: string | null | undefined, digits = 1): string {
  if (typeof score === 'number') return score.toFixed(digits);
  return rating === NOT_APPLICABLE ? 'N/A' : '—';
}

/** A hazard's rating as FEMA gives it; a dash when the answer carries none. */
export function ratingText(rating: string | null | undefined): string {
  return rating || '—';
}

/** The short mark beside a hazard without a score (a chart axis): '' for a scored one. */
export function unscoredMark(score: number | null, rating: string | null): string {
  if (rating === NO_RATING) return ' (no rating)';
  if (score !== null) return '';
  if (rating === NOT_APPLICABLE) return ' (N/A)';
  if (rating === INSUFFICIENT_DATA) return ' (no data)';
  return ' (unknown)';
}

/**
 * The hazards without an ordinary score, grouped by FEMA's word, as sentences:
 * 'Insufficient Data (FEMA has too little data to estimate it): Earthquake, Hurricane.'
 */
export function unscoredSentences(rows: { name: string; score: number | null; rating: string | null }[]): string[] {
  const groups = new Map<string, string[]>();
  for (const row of rows) {
    let label: string | null = null;
    if (row.rating === NO_RATING) label = `${NO_RATING} (${RATING_MEANING[NO_RATING]})`;
    else if (row.score === null) {
      label = row.rating && RATING_MEANING[row.rating]
        ? `${row.rating} (${RATING_MEANING[row.rating]})`
        : row.rating ? row.rating : 'No score or rating in this answer';
    }
    if (label) groups.set(label, [...(groups.get(label) ?? []), row.name]);
  }
  const order = [NOT_APPLICABLE, INSUFFICIENT_DATA, NO_RATING];
  const rank = (label: string) => {
    const i = order.findIndex((word) => label.startsWith(word));
    return i === -1 ? order.length : i;
  };
  return [...groups.entries()].sort(([a], [b]) => rank(a) - rank(b)).map(([label, names]) => `${label}: ${names.join(', ')}.`);
}
