"""A finished batch's portfolio summary over HTTP (owner-scoped; 404 without a detailed export)."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.params import FromPath, QueryParameter

from domain.portfolio import COMPOSITE
from entrypoints.http.dependencies import Claims, Portfolios
from entrypoints.http.openapi import signed_in
from entrypoints.http.portfolio_schema import PortfolioBody, portfolio_body

VALUE_COLUMN = "One of your upload's own numeric columns (e.g. total insured value): summed by county and by rating"
PERIL = "composite or a hazard code such as HRCN: ranks the riskiest 50 and splits the occupancy mix by its rating"


@get(
    "/api/exports/{filename:str}/portfolio",
    tags=["batch"],
    summary="A finished batch at a glance: located rows, score histograms per peril, counties, the riskiest 50, occupancy mix",
    **signed_in(400, 404),
)
async def export_portfolio(
    portfolios: Portfolios,
    claims: Claims,
    filename: FromPath[str],
    value_column: Annotated[str | None, QueryParameter(max_length=200, description=VALUE_COLUMN)] = None,
    peril: Annotated[str, QueryParameter(max_length=20, description=PERIL)] = COMPOSITE,
) -> PortfolioBody:
    return portfolio_body(await portfolios.summary(claims, filename, value_column, peril))


ROUTES = [export_portfolio]
