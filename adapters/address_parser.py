"""US address parsing with usaddress (a CRF model trained on US addresses)."""

from __future__ import annotations

import re

import usaddress

from domain.address import EMPTY_ADDRESS, AddressError, normalize_zip
from domain.occupancy import ParsedAddress, address_from_parts

MAX_ADDRESS_LENGTH = 300
STREET_PARTS = (
    "AddressNumber", "AddressNumberSuffix", "StreetNamePreModifier", "StreetNamePreDirectional",
    "StreetNamePreType", "StreetName", "StreetNamePostType", "StreetNamePostDirectional", "StreetNamePostModifier",
)
UNIT_PARTS = ("OccupancyType", "OccupancyIdentifier", "SubaddressType", "SubaddressIdentifier")
HINT = "Enter the full address: street, city, state, ZIP."
_ZIP_ANYWHERE = re.compile(r"\b(\d{5})(?:-\d{4})?\b\s*(?:,?\s*(?:USA?|United States))?\s*$", re.IGNORECASE)
# "street part, CITY, ST 12345": the shape of an address whose street usaddress cannot tag.
_CITY_STATE_ZIP = re.compile(
    r"^(?P<street>.*?),\s*(?P<city>[^,]+?),?\s+(?P<state>[A-Za-z]{2})\.?,?\s+\d{5}(?:-\d{4})?\b", re.IGNORECASE
)


class UsaddressParser:
    def parse(self, text: str) -> ParsedAddress:
        text = (text or "").strip()
        if not text:
            raise AddressError(EMPTY_ADDRESS)
        if len(text) > MAX_ADDRESS_LENGTH:
            raise AddressError(f"That address is longer than {MAX_ADDRESS_LENGTH} characters. {HINT}")
        parts = _tag(text)
        street = " ".join(parts[p] for p in STREET_PARTS if parts.get(p)).strip(" ,")
        zip5 = normalize_zip(parts.get("ZipCode", "")) or _trailing_zip(text)
        state = (parts.get("StateName") or "").strip(" ,.") or None
        city = (parts.get("PlaceName") or "").strip(" ,") or None
        unit = " ".join(parts[p] for p in UNIT_PARTS if parts.get(p)) or None
        if zip5 and (not parts.get("AddressNumber") or not parts.get("StreetName")):
            # A street usaddress cannot tag ("PO BOX 287", "7TH AND TAYLOR") still has a city,
            # state and ZIP that locate it: "street part, CITY, ST 12345".
            match = _CITY_STATE_ZIP.match(text)
            if match is None or not match.group("street").strip(" ,"):
                raise AddressError(f'Could not find a street, city and state in "{_shorten(text)}". {HINT}')
            street, city, state, unit = match.group("street"), match.group("city").strip(), match.group("state"), None
        if not zip5 and not city:
            raise AddressError(f'Could not find a ZIP code or a city in "{_shorten(text)}". {HINT}')
        # The same rule as a batch row's columns (domain/occupancy.py address_from_parts).
        address = address_from_parts(street, city.title() if city else None, state, zip5, unit)
        if address is None:  # pragma: no cover - a ZIP code or a city was checked above
            raise AddressError(f'Could not read "{_shorten(text)}" as a US address. {HINT}')
        return address


def _tag(text: str) -> dict[str, str]:
    try:
        tagged, _kind = usaddress.tag(text)
        return dict(tagged)
    except usaddress.RepeatedLabelError as error:
        # Keep the first of each label: the usual cause is a repeated city or a second line.
        parts: dict[str, str] = {}
        for token, label in error.parsed_string:
            parts.setdefault(label, token)
        return parts


def _trailing_zip(text: str) -> str | None:
    match = _ZIP_ANYWHERE.search(text)
    return match.group(1) if match else None


def _shorten(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
