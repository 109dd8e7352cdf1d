"""The portfolio summary's answer (GET /api/exports/{name}/portfolio), so /schema documents it.
Its parts are domain/portfolio.py's frozen dataclasses, which msgspec encodes and Litestar
documents as they are; only the envelope is the route's own. Unknown is null."""

from __future__ import annotations

import msgspec

from application.portfolio import Portfolio
from domain.portfolio import (
    CountyExposure,
    Headline,
    PerilDistribution,
    RiskyLocation,
    SectorMix,
    TractSummary,
    ValueSummary,
)


class PortfolioBody(msgspec.Struct):
    export: str
    headline: Headline
    distributions: list[PerilDistribution]
    counties: list[CountyExposure]
    value: ValueSummary | None
    ranked_by: str
    riskiest: list[RiskyLocation]
    sectors: list[SectorMix]
    tracts: TractSummary | None  # null: no location has census-tract scores
    value_columns: list[str]  # the upload's own columns, any of which may be picked as the value


def portfolio_body(portfolio: Portfolio) -> PortfolioBody:
    summary = portfolio.summary
    return PortfolioBody(
        export=portfolio.export_name, headline=summary.headline, distributions=summary.distributions,
        counties=summary.counties, value=summary.value, ranked_by=summary.ranked_by, riskiest=summary.riskiest,
        sectors=summary.sectors, tracts=summary.tracts, value_columns=list(portfolio.user_columns),
    )
