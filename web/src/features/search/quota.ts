import type { SearchStats } from '../../api/types';

export type UsageColour = 'red' | 'yellow' | 'green';

/** SPEC §4/§9: red at 2 or fewer remaining, yellow at 5 or fewer, else green. */
export function usageColour(remaining: number): UsageColour {
  if (remaining <= 2) return 'red';
  if (remaining <= 5) return 'yellow';
  return 'green';
}

/** SPEC §6: the warning shows at 3 or fewer remaining searches. */
export const WARNING_THRESHOLD = 3;

export function remainingOf(stats: SearchStats): number | null {
  if (stats.search_limit === null) return null;
  if (stats.remaining_searches !== null) return Math.max(0, stats.remaining_searches);
  return Math.max(0, stats.search_limit - stats.current_month_searches);
}

export function usagePercent(stats: SearchStats): number {
  if (!stats.search_limit) return 0;
  return Math.min(100, Math.round((stats.current_month_searches / stats.search_limit) * 100));
}
