"""Which county an address is in, and how sure we are (DESIGN.md: "Every answer says how it was
located and how sure the county is").

A ZIP code is a mail route, not an area: about a quarter of ZIPs, holding far more than a quarter
of commercial addresses, cross county lines. The ZIP's largest-area county is the wrong guess
for a busy town in a mostly rural ZIP, so the choice weighs:

- the share of the ZIP's addresses in each county (HUD-USPS crosswalk), and
- where the address names a city, the share of that place's population in each county
  (Census places, towns and townships).

The two are combined as independent evidence: each candidate county's share of the ZIP times
the place's share in it (plus a little, because a postal city name is often not the Census
place of the same name), normalised. The confidence is the chosen county's normalised weight."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

LOW_CONFIDENCE_BELOW = 0.8
PLACE_SMOOTHING = 0.05

ZIP_ONE_COUNTY = "zip"  # the ZIP lies in one county
ZIP_AND_PLACE = "zip_and_place"  # a multi-county ZIP, decided with the city named
ZIP_SHARE = "zip_share"  # a multi-county ZIP, by where most of its addresses are
PLACE_ONLY = "place"  # the ZIP is unknown; the city in the stated state decided
GEOCODER = "geocoder"  # the geocoder placed the address itself in a county
NOT_LOCATED = "none"


@dataclass(frozen=True, slots=True)
class CountyShare:
    county_fips: str
    share: float


@dataclass(frozen=True, slots=True)
class CountyChoice:
    county_fips: str | None
    confidence: float | None  # None when nothing was located
    method: str
    candidates: tuple[CountyShare, ...] = ()  # every candidate with its weight, best first
    notes: tuple[str, ...] = ()  # what the user should know, in words

    @property
    def alternatives(self) -> tuple[CountyShare, ...]:
        return self.candidates[1:]

    @property
    def low_confidence(self) -> bool:
        return self.confidence is not None and (self.confidence < LOW_CONFIDENCE_BELOW or bool(self.notes))


def choose_county(zip_shares: Sequence[CountyShare], place_shares: Mapping[str, float]) -> CountyChoice:
    """`zip_shares`: the ZIP's counties with the share of its addresses; `place_shares`: the
    counties of the place the address names (in the address's state), with the share of its
    population. Either may be empty."""
    if not zip_shares:
        if not place_shares:
            return CountyChoice(None, None, NOT_LOCATED)
        return _ranked(dict(place_shares), PLACE_ONLY)
    if len(zip_shares) == 1:
        only = zip_shares[0].county_fips
        return CountyChoice(only, 1.0, ZIP_ONE_COUNTY, (CountyShare(only, 1.0),))
    weights = {c.county_fips: max(c.share, 0.0) for c in zip_shares}
    if any(county in place_shares for county in weights):
        combined = {county: share * (place_shares.get(county, 0.0) + PLACE_SMOOTHING) for county, share in weights.items()}
        return _ranked(combined, ZIP_AND_PLACE)
    return _ranked(weights, ZIP_SHARE)


def _ranked(weights: dict[str, float], method: str) -> CountyChoice:
    total = sum(weights.values())
    if total <= 0:  # no addresses recorded anywhere: every candidate equally likely
        weights, total = {county: 1.0 for county in weights}, float(len(weights))
    ranked = sorted((CountyShare(c, w / total) for c, w in weights.items()), key=lambda c: (-c.share, c.county_fips))
    return CountyChoice(ranked[0].county_fips, ranked[0].share, method, tuple(ranked))


def decided_by_geocoder(choice: CountyChoice, county_fips: str) -> CountyChoice:
    """A geocoder that matched the address places it in a county itself: that county, certain;
    the ZIP's other counties stay listed as what the ZIP alone would have allowed."""
    others = tuple(c for c in choice.candidates if c.county_fips != county_fips)
    return CountyChoice(county_fips, 1.0, GEOCODER, (CountyShare(county_fips, 1.0), *others), choice.notes)


def disputed_by_place(choice: CountyChoice, place_shares: Mapping[str, float], note: str) -> CountyChoice:
    """The ZIP and the city and state named point to different places: both readings stay, each
    with half the weight, so the county from the ZIP is kept but no more than half sure, and the
    named city's county is one click away."""
    weights: dict[str, float] = {}
    for candidate in choice.candidates:
        weights[candidate.county_fips] = weights.get(candidate.county_fips, 0.0) + candidate.share / 2
    place_total = sum(place_shares.values()) or 1.0
    for county, share in place_shares.items():
        weights[county] = weights.get(county, 0.0) + share / place_total / 2
    ranked = sorted((CountyShare(c, w) for c, w in weights.items()), key=lambda c: (-c.share, c.county_fips))
    chosen = next(c for c in ranked if c.county_fips == choice.county_fips)
    others = tuple(c for c in ranked if c.county_fips != choice.county_fips)
    return CountyChoice(chosen.county_fips, chosen.share, choice.method, (chosen, *others), (*choice.notes, note))


def with_note(choice: CountyChoice, note: str) -> CountyChoice:
    return CountyChoice(choice.county_fips, choice.confidence, choice.method, choice.candidates, (*choice.notes, note))


_LEGAL_SUFFIX = re.compile(
    r"\s+(city and borough|consolidated government|metropolitan government|unified government|urban county|"
    r"charter township|city \(balance\)|\(balance\)|municipality|plantation|township|borough|village|"
    r"town|city|cdp)$",
    re.IGNORECASE,
)
_ABBREVIATIONS = ((re.compile(r"\bST\.?\s"), "SAINT "), (re.compile(r"\bFT\.?\s"), "FORT "), (re.compile(r"\bMT\.?\s"), "MOUNT "))


def place_key(name: str) -> str:
    """A place name as addresses and the Census both write it: 'St. Louis city' and 'SAINT LOUIS'
    give the same key."""
    text, previous = name.strip(), None
    while text != previous:  # "metropolitan government (balance)" carries two
        previous, text = text, _LEGAL_SUFFIX.sub("", text)
    text = text.upper()
    for pattern, replacement in _ABBREVIATIONS:
        text = pattern.sub(replacement, text)
    return " ".join(re.sub(r"[^A-Z0-9 ]", " ", text).split())
