import type { SystemStats } from './adminApi';

/** SPEC §9: percentages are rounded integers, 0 when the denominator is 0. */
export function percent(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 100) : 0;
}

/** An average to one decimal, 0 when there is nothing to divide by. */
export function average(total: number, count: number): number {
  return count > 0 ? Math.round((total / count) * 10) / 10 : 0;
}

/** SPEC §9: the daily average counts a 30-day month. */
export const DAYS_IN_MONTH = 30;

export interface StatisticsView {
  adminShare: number;
  regularShare: number;
  searchesPerUser: number;
  monthShareOfTotal: number;
  todayShareOfMonth: number;
  nearLimitShare: number;
  dailyAverage: number;
}

export function statisticsView(stats: SystemStats): StatisticsView {
  return {
    adminShare: percent(stats.admin_users, stats.total_users),
    regularShare: percent(stats.regular_users, stats.total_users),
    searchesPerUser: average(stats.total_searches, stats.total_users),
    monthShareOfTotal: percent(stats.month_searches, stats.total_searches),
    todayShareOfMonth: percent(stats.day_searches, stats.month_searches),
    nearLimitShare: percent(stats.near_limit_users, stats.regular_users),
    dailyAverage: average(stats.month_searches, DAYS_IN_MONTH),
  };
}
