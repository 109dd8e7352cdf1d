import { api } from '../../api/api';
import type { PortfolioSummary } from '../../api/types';

export interface PortfolioArgs {
  filename: string;
  peril: string;
  valueColumn: string;
}

export function portfolioPath({ filename, peril, valueColumn }: PortfolioArgs): string {
  const query = new URLSearchParams({ peril });
  if (valueColumn) query.set('value_column', valueColumn);
  return `/api/exports/${encodeURIComponent(filename)}/portfolio?${query.toString()}`;
}

const portfolioApi = api.injectEndpoints({
  endpoints: (build) => ({
    portfolio: build.query<PortfolioSummary, PortfolioArgs>({
      query: portfolioPath,
      providesTags: (_result, _error, args) => [{ type: 'Exports', id: args.filename }],
    }),
  }),
});

export const { usePortfolioQuery } = portfolioApi;
