"""Third-party lookup adapters against recorded response shapes (tests/fixtures/*.json), over
httpx.MockTransport: US Census geocoder, Google Places Nearby Search, Yelp Fusion, place photos.
No test reaches the network."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from adapters.address_parser import UsaddressParser
from adapters.providers.census_geocoder import CensusGeocoder
from adapters.providers.google_photos import GooglePlacePhotos
from adapters.providers.google_places import GooglePlacesProvider
from adapters.providers.yelp_fusion import YelpFusionProvider
from application.errors import NotFound, ProviderUnavailable
from domain.occupancy import GeoPoint, ParsedAddress

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOGLE_KEY = "AIzaSyTEST-google-key-0123456789abcdef"
YELP_KEY = "yelp-test-key-Zx9Qv7Lm3Np5Rt8Wb2Kd"
POINT = GeoPoint(47.6045, -122.3305, "census_exact")
CENTROID = GeoPoint(47.6015, -122.3343, "zip_centroid")


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def client_for(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def query(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}


@pytest.fixture
def address() -> ParsedAddress:
    return UsaddressParser().parse("701 5th Ave, Seattle, WA 98104")


class FakeFallback:
    name = "embedded ZIP centroids"

    def __init__(self, point: GeoPoint | None = CENTROID) -> None:
        self.point = point
        self.calls = 0

    async def geocode(self, address: ParsedAddress) -> GeoPoint | None:
        self.calls += 1
        return self.point


async def no_sleep(_seconds: float) -> None:
    return None


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    @property
    def text(self) -> str:
        """Every message and every `extra` field, as they would reach the log."""
        return "\n".join(f"{r.getMessage()} {r.__dict__}" for r in self.records)


@pytest.fixture
def logs():  # noqa: ANN201 - the suite runs with -p no:logging, so no caplog
    handler = Captured()
    logger = logging.getLogger("perilscope")
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(previous)


# --- US Census geocoder -------------------------------------------------------------------------


async def test_census_match_gives_the_exact_point_with_its_county_and_tract(address: ParsedAddress) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=fixture("census_geographies_match.json"))

    fallback = FakeFallback()
    geocoder = CensusGeocoder(client_for(handler), fallback)
    point = await geocoder.geocode(address)

    assert point == GeoPoint(
        lat=47.60448932619583, lng=-122.33046457113398, match_level="census_exact",
        county_fips="53033", tract_geoid="53033008100",
    )
    assert fallback.calls == 0
    assert geocoder.name == "US Census geocoder"
    (request,) = seen
    assert request.url.host == "geocoding.geo.census.gov"
    assert request.url.path == "/geocoder/geographies/onelineaddress"
    assert query(request) == {
        "address": address.one_line, "benchmark": "Public_AR_Current", "vintage": "Current_Current", "format": "json"
    }
    assert request.extensions["timeout"]["read"] == 5.0


async def test_a_locations_only_answer_still_gives_the_point(address: ParsedAddress) -> None:
    """The locations endpoint's shape (no geographies): a point, and the county left to the ZIP."""
    geocoder = CensusGeocoder(
        client_for(lambda r: httpx.Response(200, json=fixture("census_onelineaddress_match.json"))), FakeFallback()
    )
    point = await geocoder.geocode(address)
    assert point is not None and point.county_fips is None and point.tract_geoid is None


async def test_census_no_match_falls_back_to_the_zip_centroid(address: ParsedAddress) -> None:
    fallback = FakeFallback()
    geocoder = CensusGeocoder(
        client_for(lambda r: httpx.Response(200, json=fixture("census_onelineaddress_no_match.json"))), fallback
    )
    assert await geocoder.geocode(address) == CENTROID
    assert fallback.calls == 1


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(lambda r: (_ for _ in ()).throw(httpx.ReadTimeout("timed out", request=r)), id="timeout"),
        pytest.param(lambda r: (_ for _ in ()).throw(httpx.ConnectError("refused", request=r)), id="connect"),
        pytest.param(lambda r: httpx.Response(500, text="<html>Internal Server Error</html>"), id="http-500"),
        pytest.param(
            lambda r: httpx.Response(400, json={"errors": ["Address cannot be empty"], "status": "400"}), id="http-400"
        ),
        pytest.param(lambda r: httpx.Response(200, text="<html>maintenance</html>"), id="not-json"),
    ],
)
async def test_census_failures_fall_back_and_are_logged(
    address: ParsedAddress, failure: Callable, logs: Captured
) -> None:
    fallback = FakeFallback()
    geocoder = CensusGeocoder(client_for(failure), fallback)
    assert await geocoder.geocode(address) == CENTROID
    assert fallback.calls == 1
    assert any(r.levelno == logging.WARNING and "fallback" in r.getMessage() for r in logs.records)


async def test_census_without_match_or_fallback_point_gives_none(address: ParsedAddress) -> None:
    geocoder = CensusGeocoder(
        client_for(lambda r: httpx.Response(200, json=fixture("census_onelineaddress_no_match.json"))),
        FakeFallback(None),
    )
    assert await geocoder.geocode(address) is None


# --- Google Places Nearby Search ----------------------------------------------------------------


def google_pages(*pages: str, invalid_first: int = 0):  # noqa: ANN201
    """A handler serving page 1 for the location search and the next page for each page token."""
    bodies = [fixture(name) for name in pages]
    by_token = {body["next_page_token"]: index + 1 for index, body in enumerate(bodies) if "next_page_token" in body}
    seen: list[httpx.Request] = []
    refusals = {"left": invalid_first}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        params = query(request)
        assert params["key"] == GOOGLE_KEY
        if "pagetoken" not in params:
            return httpx.Response(200, json=bodies[0])
        if refusals["left"]:
            refusals["left"] -= 1
            return httpx.Response(200, json=fixture("google_nearby_invalid_request.json"))
        return httpx.Response(200, json=bodies[by_token[params["pagetoken"]]])

    return handler, seen


async def test_google_follows_next_page_token_up_to_three_pages(address: ParsedAddress) -> None:
    handler, seen = google_pages("google_nearby_page1.json", "google_nearby_page2.json", "google_nearby_page3.json")
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    places = GooglePlacesProvider(client_for(handler), GOOGLE_KEY, sleep=sleep)
    occupants = await places.occupants_at(address, POINT)

    assert len(seen) == 3  # page 3 still has a token; three pages is the cap
    first = query(seen[0])
    assert seen[0].url.path == "/maps/api/place/nearbysearch/json"
    assert first == {"location": "47.6045,-122.3305", "radius": "50", "key": GOOGLE_KEY}
    assert query(seen[1]) == {"pagetoken": fixture("google_nearby_page1.json")["next_page_token"], "key": GOOGLE_KEY}
    assert query(seen[2])["pagetoken"] == fixture("google_nearby_page2.json")["next_page_token"]
    assert sleeps == [2.0, 2.0]  # a fresh page token is not valid at once

    # 'Seattle' (locality, political) is an area, not an occupant.
    names = [o.name for o in occupants]
    assert names == [
        "Columbia Center",
        "Starbucks",
        "Sky View Observatory",
        "Columbia Tower Club",
        "Bank of America Financial Center",
        "Columbia Center Dental",
        "Subway",
        "Lawyers on Fifth PLLC",
    ]
    raw = fixture("google_nearby_page1.json")["results"][2]
    starbucks = occupants[1]
    assert starbucks.vicinity == raw["vicinity"] == "701 5th Ave, Seattle"
    assert starbucks.types == raw["types"]
    assert starbucks.business_status == "OPERATIONAL"
    assert (starbucks.lat, starbucks.lng) == (raw["geometry"]["location"]["lat"], raw["geometry"]["location"]["lng"])
    assert starbucks.photo_reference == raw["photos"][0]["photo_reference"]
    by_name = {o.name: o for o in occupants}
    assert by_name["Subway"].business_status == "CLOSED_PERMANENTLY"
    assert by_name["Columbia Center Dental"].photo_reference is None  # no photos[] in the result


async def test_google_types_map_to_naics(address: ParsedAddress) -> None:
    handler, _ = google_pages("google_nearby_page1.json", "google_nearby_page2.json", "google_nearby_page3.json")
    occupants = await GooglePlacesProvider(client_for(handler), GOOGLE_KEY, sleep=no_sleep).occupants_at(address, POINT)
    naics = {o.name: o.naics_code for o in occupants}
    assert naics == {
        "Columbia Center": None,  # point_of_interest, establishment: unknown
        "Starbucks": "722515",  # cafe
        "Sky View Observatory": None,  # tourist_attraction is not in our mapping
        "Columbia Tower Club": "722511",  # restaurant (first mapped type)
        "Bank of America Financial Center": "522110",  # bank
        "Columbia Center Dental": "621210",  # dentist
        "Subway": "722513",  # meal_takeaway
        "Lawyers on Fifth PLLC": "541110",  # lawyer
    }


async def test_google_retries_a_page_token_that_is_not_valid_yet(address: ParsedAddress) -> None:
    handler, seen = google_pages("google_nearby_page1.json", "google_nearby_page2.json", invalid_first=1)
    places = GooglePlacesProvider(client_for(handler), GOOGLE_KEY, max_pages=2, sleep=no_sleep)
    occupants = await places.occupants_at(address, POINT)
    assert len(seen) == 3 and len(occupants) == 7


async def test_google_single_page_without_token(address: ParsedAddress) -> None:
    body = fixture("google_nearby_page3.json")
    del body["next_page_token"]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=body)

    occupants = await GooglePlacesProvider(client_for(handler), GOOGLE_KEY, sleep=no_sleep).occupants_at(address, POINT)
    assert [o.name for o in occupants] == ["Lawyers on Fifth PLLC"] and len(seen) == 1


async def test_google_zero_results_is_an_empty_list(address: ParsedAddress) -> None:
    handler = lambda r: httpx.Response(200, json=fixture("google_nearby_zero_results.json"))  # noqa: E731
    assert await GooglePlacesProvider(client_for(handler), GOOGLE_KEY).occupants_at(address, POINT) == []


async def test_google_without_a_point_makes_no_call(address: ParsedAddress) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request expected")

    assert await GooglePlacesProvider(client_for(handler), GOOGLE_KEY).occupants_at(address, None) == []


async def test_around_a_zip_codes_centre_nearby_providers_search_nothing_and_cover_nothing(address: ParsedAddress) -> None:
    """Businesses 50 m from a ZIP code's centre do not occupy the address: no call, and its
    occupants are unknown, not none (#26, item 2)."""
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request expected")

    centre = GeoPoint(47.6, -122.33, "zip_centroid")
    for provider in (GooglePlacesProvider(client_for(handler), GOOGLE_KEY), YelpFusionProvider(client_for(handler), YELP_KEY)):
        assert await provider.occupants_at(address, centre) == []
        assert not (await provider.coverage(address, centre)).covered
        at_building = await provider.coverage(address, POINT)
        assert at_building.covered and provider.name in at_building.covers
    assert (await GooglePlacesProvider(client_for(handler), GOOGLE_KEY).coverage(address, POINT)).photos


@pytest.mark.parametrize(
    ("fixture_name", "status"),
    [("google_nearby_request_denied.json", "REQUEST_DENIED"), ("google_nearby_over_query_limit.json", "OVER_QUERY_LIMIT")],
)
async def test_google_refusals_raise_provider_unavailable(
    address: ParsedAddress, fixture_name: str, status: str, logs: Captured
) -> None:
    handler = lambda r: httpx.Response(200, json=fixture(fixture_name))  # noqa: E731
    with pytest.raises(ProviderUnavailable) as raised:
        await GooglePlacesProvider(client_for(handler), GOOGLE_KEY).occupants_at(address, POINT)
    assert raised.value.message == f"Occupant search is unavailable: Google Places answered {status}. Please try again later."
    assert status in logs.text and GOOGLE_KEY not in logs.text


async def test_google_page_token_never_valid_raises(address: ParsedAddress) -> None:
    handler, seen = google_pages("google_nearby_page1.json", "google_nearby_page2.json", invalid_first=99)
    with pytest.raises(ProviderUnavailable, match="INVALID_REQUEST"):
        await GooglePlacesProvider(client_for(handler), GOOGLE_KEY, sleep=no_sleep).occupants_at(address, POINT)
    assert len(seen) == 1 + 3


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        (lambda r: (_ for _ in ()).throw(httpx.ReadTimeout("timed out", request=r)), "did not answer in time"),
        (lambda r: httpx.Response(502, text="Bad Gateway"), "failed (HTTP 502)"),
        (lambda r: (_ for _ in ()).throw(httpx.ConnectError("refused", request=r)), "could not be reached"),
    ],
)
async def test_google_transport_failures_raise_without_the_key(
    address: ParsedAddress, failure: Callable, reason: str, logs: Captured
) -> None:
    with pytest.raises(ProviderUnavailable) as raised:
        await GooglePlacesProvider(client_for(failure), GOOGLE_KEY).occupants_at(address, POINT)
    assert reason in raised.value.message
    assert GOOGLE_KEY not in raised.value.message
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    assert logs.records and GOOGLE_KEY not in logs.text


# --- Yelp Fusion ---------------------------------------------------------------------------------


async def test_yelp_maps_businesses(address: ParsedAddress) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=fixture("yelp_business_search.json"))

    places = YelpFusionProvider(client_for(handler), YELP_KEY)
    occupants = await places.occupants_at(address, POINT)

    (request,) = seen
    assert str(request.url).startswith("https://api.yelp.com/v3/businesses/search?")
    assert request.headers["authorization"] == f"Bearer {YELP_KEY}"
    params = query(request)
    assert (params["latitude"], params["longitude"], params["radius"], params["limit"]) == (
        "47.6045", "-122.3305", "50", "50"
    )
    assert YELP_KEY not in str(request.url)

    # The hotel 344 m away is outside the building (Yelp widened the radius).
    assert [o.name for o in occupants] == [
        "Starbucks", "Columbia Tower Club", "Bank of America Financial Center", "Subway"
    ]
    starbucks, club, bank, subway = occupants
    assert starbucks.vicinity == "701 5th Ave, Seattle, WA 98104"
    assert club.vicinity == "701 5th Ave Fl 76, Seattle, WA 98104"
    assert starbucks.types == ["coffee"] and club.types == ["newamerican", "venues"]
    assert (starbucks.naics_code, club.naics_code, bank.naics_code, subway.naics_code) == (
        "722515", None, "522110", None
    )
    assert [o.business_status for o in occupants] == ["OPERATIONAL", "OPERATIONAL", "OPERATIONAL", "CLOSED_PERMANENTLY"]
    assert (starbucks.lat, starbucks.lng) == (47.6046254, -122.3303925)
    assert all(o.photo_reference is None for o in occupants)  # image_url is not a Places photo reference
    assert places.name == "Yelp Fusion"


@pytest.mark.parametrize(
    ("status", "fixture_name", "code"),
    [(401, "yelp_error_token_invalid.json", "TOKEN_INVALID"), (429, "yelp_error_access_limit.json", "ACCESS_LIMIT_REACHED")],
)
async def test_yelp_errors_raise_provider_unavailable(
    address: ParsedAddress, status: int, fixture_name: str, code: str
) -> None:
    handler = lambda r: httpx.Response(status, json=fixture(fixture_name))  # noqa: E731
    with pytest.raises(ProviderUnavailable) as raised:
        await YelpFusionProvider(client_for(handler), YELP_KEY).occupants_at(address, POINT)
    assert raised.value.message == f"Occupant search is unavailable: Yelp Fusion answered {code}. Please try again later."


async def test_yelp_timeout_and_no_point(address: ParsedAddress) -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(ProviderUnavailable, match="did not answer in time"):
        await YelpFusionProvider(client_for(timeout), YELP_KEY).occupants_at(address, POINT)
    assert await YelpFusionProvider(client_for(timeout), YELP_KEY).occupants_at(address, None) == []


# --- Google place photos -------------------------------------------------------------------------

JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x00" * 200 + b"\xff\xd9"
PHOTO_REF = fixture("google_nearby_page1.json")["results"][2]["photos"][0]["photo_reference"]
CDN = "https://lh3.googleusercontent.com/places/ANXAkqHtest=s1600-w400"


def photo_service(final: httpx.Response) -> tuple[Callable[[httpx.Request], httpx.Response], list[httpx.Request]]:
    """The photo service answers 302 to the image on Google's CDN, as the real one does."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.host == "maps.googleapis.com":
            return httpx.Response(302, headers={"Location": CDN, "Content-Type": "text/html; charset=UTF-8"})
        return final

    return handler, seen


async def test_photo_follows_the_redirect_and_returns_the_image() -> None:
    handler, seen = photo_service(httpx.Response(200, content=JPEG, headers={"Content-Type": "image/jpeg"}))
    photo = await GooglePlacePhotos(client_for(handler), GOOGLE_KEY).photo(PHOTO_REF, 400)
    assert photo.content == JPEG and photo.content_type == "image/jpeg"
    first, second = seen
    assert first.url.path == "/maps/api/place/photo"
    assert query(first) == {"maxwidth": "400", "photo_reference": PHOTO_REF, "key": GOOGLE_KEY}
    assert str(second.url) == CDN and GOOGLE_KEY not in str(second.url)


@pytest.mark.parametrize(
    "final",
    [
        pytest.param(httpx.Response(200, text="<html>not an image</html>", headers={"Content-Type": "text/html"}), id="html"),
        pytest.param(httpx.Response(200, text="<svg onload='x()'/>", headers={"Content-Type": "image/svg+xml"}), id="svg"),
        pytest.param(httpx.Response(200, content=b"\x00" * 64), id="no-content-type"),
        pytest.param(httpx.Response(403, text="forbidden"), id="http-403"),
    ],
)
async def test_photo_refuses_what_is_not_an_image(final: httpx.Response) -> None:
    handler, _ = photo_service(final)
    with pytest.raises(ProviderUnavailable):
        await GooglePlacePhotos(client_for(handler), GOOGLE_KEY).photo(PHOTO_REF, 400)


async def test_photo_size_cap_by_header_and_by_stream() -> None:
    big = b"\xff\xd8" + b"\x00" * 2048
    handler, _ = photo_service(httpx.Response(200, content=big, headers={"Content-Type": "image/jpeg"}))
    with pytest.raises(ProviderUnavailable, match="larger"):
        await GooglePlacePhotos(client_for(handler), GOOGLE_KEY, max_bytes=1024).photo(PHOTO_REF, 400)

    async def chunks():  # noqa: ANN202 - no Content-Length: counted while streaming
        for _ in range(8):
            yield b"\x00" * 256

    handler, _ = photo_service(httpx.Response(200, content=chunks(), headers={"Content-Type": "image/png"}))
    with pytest.raises(ProviderUnavailable, match="larger"):
        await GooglePlacePhotos(client_for(handler), GOOGLE_KEY, max_bytes=1024).photo(PHOTO_REF, 400)


async def test_photo_unknown_reference_is_not_found() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, text="<html><title>Error 400 (Bad Request)!!1</title></html>")

    with pytest.raises(NotFound):
        await GooglePlacePhotos(client_for(handler), GOOGLE_KEY).photo(PHOTO_REF, 400)
