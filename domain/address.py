"""Addresses: the building key two addresses share when they name the same building,
and the SPEC §3 address text (street line, 'Year Built: v', then 'Key: value' lines)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# USPS Publication 28 abbreviations for the suffixes and directions seen in city registries.
STREET_SUFFIXES = {
    "AVENUE": "AVE", "AV": "AVE", "AVEN": "AVE", "STREET": "ST", "STR": "ST", "ROAD": "RD",
    "BOULEVARD": "BLVD", "BOUL": "BLVD", "DRIVE": "DR", "DRV": "DR", "LANE": "LN", "PLACE": "PL",
    "COURT": "CT", "TERRACE": "TER", "PARKWAY": "PKWY", "PKY": "PKWY", "HIGHWAY": "HWY",
    "CIRCLE": "CIR", "SQUARE": "SQ", "TRAIL": "TRL", "WAY": "WAY", "ALLEY": "ALY", "EXPRESSWAY": "EXPY",
    "FREEWAY": "FWY", "CENTER": "CTR", "PLAZA": "PLZ", "POINT": "PT", "LOOP": "LOOP", "ROUTE": "RTE",
}
DIRECTIONS = {
    "NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W",
    "NORTHEAST": "NE", "NORTHWEST": "NW", "SOUTHEAST": "SE", "SOUTHWEST": "SW",
}
ORDINALS = {
    "FIRST": "1ST", "SECOND": "2ND", "THIRD": "3RD", "FOURTH": "4TH", "FIFTH": "5TH", "SIXTH": "6TH",
    "SEVENTH": "7TH", "EIGHTH": "8TH", "NINTH": "9TH", "TENTH": "10TH", "ELEVENTH": "11TH", "TWELFTH": "12TH",
}
WORD_ABBREVIATIONS = {**STREET_SUFFIXES, **DIRECTIONS, **ORDINALS}
UNIT_WORDS = ("APT", "APARTMENT", "SUITE", "STE", "UNIT", "FL", "FLOOR", "RM", "ROOM", "BLDG", "DEPT", "SPC", "LOT")
_UNIT_PART = re.compile(r"\s*(?:#|\b(?:%s)\b\.?).*$" % "|".join(UNIT_WORDS))
_NON_WORD = re.compile(r"[^A-Z0-9# ]+")
_SPACES = re.compile(r"\s+")
_ZIP5 = re.compile(r"^(\d{5})(?:-?\d{4})?$")
_NUMBER_SIGN = re.compile(r"^#\s*(?=\d)")  # "#1 MEDICAL PARK DRIVE": the building's number, not a unit
# A street is read when it starts with a house number ("1201", "12B", "123-45" as "123 45") followed
# by a name: not "PO BOX 287", "7TH AND TAYLOR", "CARR 2 KM 47 7" or "URB LAS LOMAS".
_HOUSE_NUMBER_THEN_NAME = re.compile(r"^\d+[A-Z]?(?: \d+[A-Z]?)? [A-Z0-9]")


@dataclass(frozen=True, slots=True, order=True)
class BuildingKey:
    street: str  # e.g. '701 5TH AVE'
    zip5: str

    def __str__(self) -> str:
        return f"{self.street} {self.zip5}"


def normalize_street(street: str) -> str:
    """Upper-case, punctuation dropped, unit/suite cut, suffixes and directions abbreviated."""
    text = _SPACES.sub(" ", _NON_WORD.sub(" ", _NUMBER_SIGN.sub("", street.strip().upper()))).strip()
    text = _UNIT_PART.sub("", text).strip()
    words = [WORD_ABBREVIATIONS.get(word, word) for word in text.split(" ") if word]
    return " ".join(words)


def street_is_read(street_key: str) -> bool:
    """The one rule, for a single lookup's line and a batch row's column alike (#26, item 6): a
    normalised street (normalize_street) is read as a building's address when it starts with a
    house number followed by a street name. Any other street is answered for its ZIP code and city."""
    return bool(_HOUSE_NUMBER_THEN_NAME.match(street_key))


def normalize_zip(zip_code: str) -> str | None:
    match = _ZIP5.match(zip_code.strip()) if zip_code else None
    return match.group(1) if match else None


def building_key(street: str, zip_code: str) -> BuildingKey | None:
    zip5 = normalize_zip(zip_code or "")
    street_key = normalize_street(street or "")
    if not zip5 or not street_key:
        return None
    return BuildingKey(street_key, zip5)


# --- the address text of SPEC §3 -------------------------------------------------

YEAR_BUILT = "Year Built"
ADDRESS_UNKNOWN = "Address Unknown"
_YEAR_BUILT_MARK = f"{YEAR_BUILT}:"


def format_address_text(street_line: str, year_built: str | int | None, details: list[tuple[str, str]]) -> str:
    first = _one_line(street_line)
    if year_built not in (None, ""):
        first = f"{first} {_YEAR_BUILT_MARK} {_one_line(str(year_built))}"
    lines = [first] + [f"{_one_line(key).replace(':', '')}: {_one_line(value)}" for key, value in details]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class AddressText:
    address: str
    details: dict[str, str]

    @property
    def vacancies(self) -> int | None:
        value = self.details.get("Total Space Available", "")
        digits = re.sub(r"[^\d]", "", value)
        return int(digits) if digits else None


def parse_address_text(text: str | None) -> AddressText:
    lines = [line.strip() for line in (text or "").splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return AddressText(ADDRESS_UNKNOWN, {})
    first, *rest = lines
    details: dict[str, str] = {}
    street, mark, year = first.partition(_YEAR_BUILT_MARK)
    if mark:
        details[YEAR_BUILT] = year.strip()
    for line in rest:
        key, sep, value = line.partition(":")
        if sep and key.strip():
            details[key.strip()] = value.strip()
    return AddressText(street.strip() or ADDRESS_UNKNOWN, details)


def _one_line(text: str) -> str:
    # Runs of whitespace as one space, none at the ends: str.split() splits on exactly the
    # characters the regular expression \s matches, at a fraction of its cost (a batch calls this
    # for every fact of every row).
    return " ".join(str(text).split())


class AddressError(ValueError):
    """Input that cannot be read as a US address; the message says what is missing."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


EMPTY_ADDRESS = "Please enter an address for single search"
