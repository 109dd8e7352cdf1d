"""The 18 geo perils of FEMA's National Risk Index, their scores and the top three (SPEC §2 /docs/features)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Hazard:
    code: str  # the product's code, used in field names: XXXX_Score
    name: str
    nri_code: str  # the NRI v1.20 column prefix

    @property
    def field_name(self) -> str:
        return f"{self.code}_Score"


HAZARDS: tuple[Hazard, ...] = (
    Hazard("AVLN", "Avalanche", "AVLN"),
    Hazard("CFLD", "Coastal Flooding", "CFLD"),
    Hazard("CWAV", "Cold Wave", "CWAV"),
    Hazard("DRGT", "Drought", "DRGT"),
    Hazard("ERQK", "Earthquake", "ERQK"),
    Hazard("HAIL", "Hail", "HAIL"),
    Hazard("HWAV", "Heat Wave", "HWAV"),
    Hazard("HRCN", "Hurricane", "HRCN"),
    Hazard("ISTM", "Ice Storm", "ISTM"),
    Hazard("LNDS", "Landslide", "LNDS"),
    Hazard("LTNG", "Lightning", "LTNG"),
    # NRI v1.20 replaced riverine flooding (RFLD) by inland flooding (IFLD).
    Hazard("RFLD", "Riverine Flooding", "IFLD"),
    Hazard("SWND", "Strong Wind", "SWND"),
    Hazard("TRND", "Tornado", "TRND"),
    Hazard("TSUN", "Tsunami", "TSUN"),
    Hazard("VLCN", "Volcanic Activity", "VLCN"),
    Hazard("WFIR", "Wildfire", "WFIR"),
    Hazard("WNTW", "Winter Weather", "WNTW"),
)
HAZARD_BY_CODE = {hazard.code: hazard for hazard in HAZARDS}
TOTAL_FIELD = "Total_Score"
# (code, field name) of each hazard, made once: a batch asks for them on every row.
_FIELD_NAMES = tuple((hazard.code, hazard.field_name) for hazard in HAZARDS)


def format_score(score: float) -> str:
    """Up to three decimals, without trailing zeros: 99.2, 57.612, 100."""
    return f"{score:.3f}".rstrip("0").rstrip(".")


@dataclass(frozen=True, slots=True)
class PerilScores:
    """Scores 0-100 per hazard; None means 'not applicable' there, never 0."""

    scores: dict[str, float | None]
    ratings: dict[str, str | None] = field(default_factory=dict)
    total: float | None = None
    total_rating: str | None = None

    def fields(self) -> dict[str, float | None]:
        scores = self.scores
        values = {name: scores.get(code) for code, name in _FIELD_NAMES}
        values[TOTAL_FIELD] = self.total
        return values

    def top3(self) -> list[tuple[Hazard, float]]:
        scores = self.scores
        scored = [(hazard, score) for hazard in HAZARDS if (score := scores.get(hazard.code)) is not None]
        # sorted() is stable, so equal scores keep the hazard order.
        return sorted(scored, key=_minus_score)[:3]

    def top3_combined(self) -> str:
        return "\n".join(f"{hazard.name}: {format_score(score)}" for hazard, score in self.top3())


def _minus_score(pair: tuple[Hazard, float]) -> float:
    return -pair[1]


def data_dictionary() -> list[tuple[int, str, str]]:
    """The 20 rows of the geo peril data dictionary: (sort, field name, field alias)."""
    rows = [(1, "ZIP", "ZIP code")]
    rows += [(i + 2, hazard.field_name, f"{hazard.name} score") for i, hazard in enumerate(HAZARDS)]
    rows.append((len(rows) + 1, TOTAL_FIELD, "Composite score of all 18 geo perils"))
    return rows
