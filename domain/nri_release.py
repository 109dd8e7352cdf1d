"""Which FEMA National Risk Index release a score comes from, read from the ways files write it
("1.20.0 (December 2025)", "March 2023", Excel's "Mar-23" and "25-Dec", a file name's "v119"),
so scores of two releases are never shown side by side without saying so."""

from __future__ import annotations

import re
from dataclasses import dataclass

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
# The releases whose number and date FEMA publishes together (hazards.fema.gov/nri, "Data Resources").
KNOWN_RELEASES: dict[tuple[int, int], str] = {(2023, 3): "1.19.0", (2025, 12): "1.20.0"}
RELEASE_DATES = {number: date for date, number in KNOWN_RELEASES.items()}


@dataclass(frozen=True, slots=True)
class NriRelease:
    number: str | None  # "1.19.0"
    year: int | None
    month: int | None

    @property
    def label(self) -> str:
        """"1.19.0 (March 2023)", the county table's own way of writing it."""
        date = f"{MONTHS[self.month - 1].title()} {self.year}" if self.year and self.month else None
        if self.number and date:
            return f"{self.number} ({date})"
        return self.number or date or "unknown release"

    @property
    def display(self) -> str:
        """"NRI v1.19.0 (March 2023)", as the data commands and receipts name a release."""
        return f"NRI v{self.label}" if self.number else f"NRI {self.label}"

    def same_as(self, other: NriRelease) -> bool:
        if self.number and other.number:
            return self.number == other.number
        return (self.year, self.month) == (other.year, other.month) and self.year is not None


def _release(number: str | None, year: int | None, month: int | None) -> NriRelease:
    if number is None and year and month:
        number = KNOWN_RELEASES.get((year, month))
    if number is not None and year is None:
        year, month = RELEASE_DATES.get(number, (None, None))
    return NriRelease(number, year, month)


def _month(word: str) -> int | None:
    word = word.lower()
    return next((i + 1 for i, name in enumerate(MONTHS) if len(word) >= 3 and name.startswith(word)), None)


def _year(digits: str) -> int:
    return int(digits) if len(digits) == 4 else 2000 + int(digits)


def parse_release(text: str | None) -> NriRelease | None:
    """The release a version cell names; None when it names none."""
    if not text or not text.strip():
        return None
    text = text.strip()
    number_match = re.search(r"\b(?:v\s*)?(1\.\d{1,2}(?:\.\d+)?)\b", text, re.I)
    number = number_match.group(1) if number_match else None
    if number and number.count(".") == 1:
        number += ".0"
    # "March 2023", "Mar-23", "Dec 2025"
    dated = re.search(r"\b([A-Za-z]{3,9})[\s\-/]+(\d{4}|\d{2})\b", text)
    if dated and _month(dated.group(1)):
        return _release(number, _year(dated.group(2)), _month(dated.group(1)))
    # Excel's reading of "Dec-25" as the 25th of December: "25-Dec"
    excel_day = re.fullmatch(r"(\d{2})-([A-Za-z]{3})", text)
    if excel_day and _month(excel_day.group(2)):
        return _release(number, _year(excel_day.group(1)), _month(excel_day.group(2)))
    return _release(number, None, None) if number else None


def release_from_file_name(name: str) -> NriRelease | None:
    """"nri_tracts_v119_mar2023.csv" -> 1.19.0; "..._v1.20_..." -> 1.20.0; None if the name says neither."""
    number = re.search(r"v(1)[._]?(\d{2})(?!\d)", name, re.I)
    if number:
        return _release(f"{number.group(1)}.{int(number.group(2))}.0", None, None)
    dated = re.search(r"(?<![A-Za-z])([A-Za-z]{3,9})[_\-]?(20\d{2})(?!\d)", name)
    if dated and _month(dated.group(1)):
        return _release(None, int(dated.group(2)), _month(dated.group(1)))
    return None


def versions_differ_note(county_version: str | None, tract_version: str | None) -> str | None:
    """A sentence when the tract and county scores come from different releases, else None."""
    county, tract = parse_release(county_version), parse_release(tract_version)
    if county is None or tract is None or county.same_as(tract):
        return None
    return (
        f"The census-tract scores are from NRI {tract.label} and the county scores from NRI {county.label}: "
        "different releases, with different methods and data, so compare each only with scores of its own release."
    )


TRACT_SCORES_NOTE = (
    "Census-tract scores rank the tract among all US tracts, county scores rank the county among counties: "
    "the two are not comparable, and the county scores are the answer's primary ones."
)
