"""The portfolio summary's answer (GET /api/exports/{name}/portfolio) as msgspec Structs, so
/schema documents it; made from domain/portfolio.py's summary by attribute. Unknown is null."""

from __future__ import annotations

import msgspec

from application.portfolio import Portfolio


class HeadlineBody(msgspec.Struct):
    rows: int
    located: int
    located_by_match_level: dict[str, int]  # building, census_exact, zip_centroid
    low_confidence: int
    not_located: int
    with_occupants: int
    with_building_record: int


class PerilDistributionBody(msgspec.Struct):
    peril: str  # "composite" or a hazard code such as HRCN
    name: str
    bins: list[int]  # counts of known scores in 0-10, 10-20, ... 90-100
    scored: int
    unknown: int  # no score: not located, or the peril does not apply there (never counted as 0)
    high: int  # rated Relatively High or Very High
    ratings: dict[str, int]


class HazardScoreBody(msgspec.Struct):
    peril: str
    name: str
    score: float


class CountyExposureBody(msgspec.Struct):
    county_fips: str
    county_name: str | None
    state: str | None
    locations: int
    composite_score: float | None
    composite_rating: str | None
    top_hazards: list[HazardScoreBody]
    value: float | None  # sum of the value column; null without one


class ValueByRatingBody(msgspec.Struct):
    peril: str
    ratings: dict[str, float]


class ValueSummaryBody(msgspec.Struct):
    column: str
    total: float
    parsed: int
    unparsed: int  # cells that are not numbers
    blank: int
    by_rating: list[ValueByRatingBody]


class RiskyLocationBody(msgspec.Struct):
    index: int  # the record's position in the export (0-based): the export viewer's address group
    row: int  # line of the uploaded file
    address: str
    county_fips: str | None
    county_name: str | None
    state: str | None
    score: float
    rating: str | None
    nri_version: str | None  # NRI release of the county's scores
    tract_score: float | None  # the census tract's score for the same peril; null where unknown
    tract_rating: str | None
    tract_nri_version: str | None  # NRI release of the tract's scores (may differ from the county's)


class TractDistributionBody(msgspec.Struct):
    peril: str
    name: str
    bins: list[int]  # counts of known tract scores in 0-10 ... 90-100
    scored: int
    unknown: int  # locations with tract scores but none for this peril (never counted as 0)
    high: int  # tract rated Relatively High or Very High
    county_high: int  # the same locations, county rated Relatively High or Very High


class TractSummaryBody(msgspec.Struct):
    locations: int  # locations with census-tract scores
    by_version: dict[str, int]  # tract NRI release -> locations
    county_versions: dict[str, int]  # county NRI release of the same locations
    other_release: int  # locations whose tract scores are from another NRI release than their county's
    distributions: list[TractDistributionBody]


class SectorMixBody(msgspec.Struct):
    sector: str  # NAICS 2022 sector such as "72" or "44-45"; "none" without a known occupant
    name: str | None
    locations: int
    ratings: dict[str, int]


class PortfolioBody(msgspec.Struct):
    export: str
    headline: HeadlineBody
    distributions: list[PerilDistributionBody]
    counties: list[CountyExposureBody]
    value: ValueSummaryBody | None
    ranked_by: str
    riskiest: list[RiskyLocationBody]
    sectors: list[SectorMixBody]
    tracts: TractSummaryBody | None  # null: no location has census-tract scores
    value_columns: list[str]  # the upload's own columns, any of which may be picked as the value


def portfolio_body(portfolio: Portfolio) -> PortfolioBody:
    fields = msgspec.structs.asdict(msgspec.convert(portfolio.summary, _SummaryFields, from_attributes=True))
    return PortfolioBody(export=portfolio.export_name, value_columns=list(portfolio.user_columns), **fields)


class _SummaryFields(msgspec.Struct):
    headline: HeadlineBody
    distributions: list[PerilDistributionBody]
    counties: list[CountyExposureBody]
    value: ValueSummaryBody | None
    ranked_by: str
    riskiest: list[RiskyLocationBody]
    sectors: list[SectorMixBody]
    tracts: TractSummaryBody | None
