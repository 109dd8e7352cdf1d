"""The photo proxy and the third-party lookup providers, over HTTP, with every outside call
answered by httpx.MockTransport (no network): the Google key never reaches a response."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from dependency_injector import providers
from httpx import AsyncClient

from adapters.providers.census_geocoder import CensusGeocoder
from adapters.providers.google_places import GooglePlacesProvider
from entrypoints.container import Container
from tests.conftest import sign_up_and_log_in

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
GOOGLE_KEY = "AIzaSyAPI-TEST-google-key-do-not-leak-42"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x11" * 512 + b"\xff\xd9"
CDN = "https://lh3.googleusercontent.com/places/ANXAkqHapiTest=s1600-w400"
NO_PHOTOS = "Photos are not available: no photo provider is configured."


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


PHOTO_REF = fixture("google_nearby_page1.json")["results"][2]["photos"][0]["photo_reference"]


def query(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(str(request.url)).query).items()}


class Upstream:
    """Every third-party host the app may call, answered from fixtures; records each request."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.census_fixture = "census_onelineaddress_match.json"  # a match without its geographies
        self.image = httpx.Response(200, content=JPEG, headers={"Content-Type": "image/jpeg", "X-Upstream": "cdn"})
        pages = [fixture(f"google_nearby_page{n}.json") for n in (1, 2, 3)]
        self.next_page = {pages[0]["next_page_token"]: pages[1], pages[1]["next_page_token"]: pages[2]}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        params = query(request)
        if request.url.host == "geocoding.geo.census.gov":
            return httpx.Response(200, json=fixture(self.census_fixture))
        if request.url.path == "/maps/api/place/nearbysearch/json":
            assert params["key"] == GOOGLE_KEY
            if "pagetoken" in params:
                return httpx.Response(200, json=self.next_page[params["pagetoken"]])
            return httpx.Response(200, json=fixture("google_nearby_page1.json"))
        if request.url.path == "/maps/api/place/photo":
            assert params["key"] == GOOGLE_KEY
            return httpx.Response(302, headers={"Location": CDN})
        if request.url.host == "lh3.googleusercontent.com":
            return self.image
        raise AssertionError(f"unexpected call to {request.url.host}")


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


def configure(container: Container, upstream: Upstream, **settings: object) -> None:
    """Call before the first request: the container's providers read settings when first used."""
    container.settings.override(providers.Object(dataclasses.replace(container.settings(), **settings)))
    container.http_client.override(providers.Object(httpx.AsyncClient(transport=httpx.MockTransport(upstream))))


async def no_sleep(_seconds: float) -> None:
    return None


@pytest.fixture
def google(container: Container, upstream: Upstream) -> Upstream:
    configure(container, upstream, places_provider="google", google_maps_api_key=GOOGLE_KEY, geocoder="census")
    # The settings pick the adapters; the override only skips the real 2 s wait before a page token is valid.
    wired = container.places()
    assert isinstance(wired, GooglePlacesProvider) and isinstance(container.geocoder(), CensusGeocoder)
    container.places.override(
        providers.Object(GooglePlacesProvider(container.http_client(), GOOGLE_KEY, sleep=no_sleep))
    )
    return upstream


def assert_no_key(response: httpx.Response) -> None:
    assert GOOGLE_KEY not in response.text
    assert GOOGLE_KEY.encode() not in response.content
    for name, value in response.headers.items():
        assert GOOGLE_KEY not in name and GOOGLE_KEY not in value


# --- /api/nearby-search with Google Places (and the Census geocoder) ------------------------------


async def test_nearby_search_returns_google_occupants(google: Upstream, client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "google-places@example.com")
    response = await client.get(
        "/api/nearby-search", params={"address": "701 5th Ave, Seattle, WA 98104"}, headers=user["headers"]
    )
    assert response.status_code == 200, response.text
    assert_no_key(response)
    body = response.json()
    names = [o["name"] for o in body["data"]]
    assert names == [
        "Columbia Center", "Starbucks", "Sky View Observatory", "Columbia Tower Club",
        "Bank of America Financial Center", "Columbia Center Dental", "Subway", "Lawyers on Fifth PLLC",
    ]
    by_name = {o["name"]: o for o in body["data"]}
    assert by_name["Starbucks"]["naics_code"] == "722515" and by_name["Starbucks"]["naics_title"]
    assert by_name["Subway"]["business_status"] == "CLOSED_PERMANENTLY"
    assert by_name["Columbia Center"]["naics_code"] == "N/A"
    assert by_name["Starbucks"]["photo_reference"] == PHOTO_REF
    result = body["result"]
    assert result["receipt"]["providers"]["places"] == "Google Places"
    assert result["receipt"]["providers"]["geocoder"] == "US Census geocoder"
    assert {"photo_reference": PHOTO_REF} in result["extra_info"]["photos"]
    nearby = [r for r in google.requests if r.url.path.endswith("/nearbysearch/json")]
    assert len(nearby) == 3
    # Columbia Center is a known building: its own coordinates are where Google is asked to look.
    assert query(nearby[0])["radius"] == "50"


async def test_census_point_is_used_where_it_says_its_county_and_no_building_is_known(
    google: Upstream, client: AsyncClient
) -> None:
    user = await sign_up_and_log_in(client, "census@example.com")
    # The recorded match: 701 5th Ave, Seattle, with its geographies (King County, 53033).
    google.census_fixture = "census_geographies_match.json"
    response = await client.get(
        "/api/nearby-search", params={"address": "1 Nonesuch Pl, Seattle, WA 98104"}, headers=user["headers"]
    )
    assert response.status_code == 200, response.text
    receipt = response.json()["result"]["receipt"]
    assert (receipt["geocode_match"], receipt["county_fips"]) == ("census_exact", "53033")
    assert (receipt["lat"], receipt["lng"]) == (47.60448932619583, -122.33046457113397)
    census = [r for r in google.requests if r.url.host == "geocoding.geo.census.gov"]
    assert query(census[0])["address"] == "1 Nonesuch Pl, Seattle, WA 98104"


async def test_a_census_point_that_does_not_say_its_county_is_not_given_for_the_county_chosen(
    google: Upstream, client: AsyncClient
) -> None:
    """The recorded match without geographies puts 100 Biscayne Blvd, Miami in Seattle: a point
    whose county nobody vouches for is not given; the ZIP code's point in Miami-Dade is (#26, item 5)."""
    user = await sign_up_and_log_in(client, "census-no-county@example.com")
    response = await client.get(
        "/api/nearby-search", params={"address": "100 Biscayne Blvd, Miami, FL 33130"}, headers=user["headers"]
    )
    receipt = response.json()["result"]["receipt"]
    assert (receipt["geocode_match"], receipt["county_fips"]) == ("zip_centroid", "12086")
    assert 25 < receipt["lat"] < 26 and -81 < receipt["lng"] < -80


async def test_google_refusal_is_a_503_and_the_search_is_not_charged(
    container: Container, upstream: Upstream, client: AsyncClient
) -> None:
    def denied(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=fixture("google_nearby_request_denied.json"))

    configure(container, upstream, places_provider="google", google_maps_api_key=GOOGLE_KEY)
    container.http_client.override(providers.Object(httpx.AsyncClient(transport=httpx.MockTransport(denied))))
    user = await sign_up_and_log_in(client, "denied@example.com")
    response = await client.get(
        "/api/nearby-search", params={"address": "701 5th Ave, Seattle, WA 98104"}, headers=user["headers"]
    )
    assert response.status_code == 503
    assert response.json()["error"] == (
        "Occupant search is unavailable: Google Places answered REQUEST_DENIED. Please try again later."
    )
    assert_no_key(response)
    stats = (await client.get("/api/auth/get-search-stats", headers=user["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 0


# --- /api/place-photo ----------------------------------------------------------------------------


async def test_photo_proxy_streams_the_image_without_the_key(google: Upstream, client: AsyncClient) -> None:
    user = await sign_up_and_log_in(client, "photo@example.com")
    response = await client.get("/api/place-photo", params={"ref": PHOTO_REF}, headers=user["headers"])
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/jpeg"
    assert response.headers["cache-control"] == "private, max-age=86400"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "x-upstream" not in response.headers  # nothing of the upstream answer but the image
    assert response.content == JPEG
    assert_no_key(response)
    photo_call = next(r for r in google.requests if r.url.path == "/maps/api/place/photo")
    assert query(photo_call) == {"maxwidth": "400", "photo_reference": PHOTO_REF, "key": GOOGLE_KEY}

    wide = await client.get("/api/place-photo", params={"ref": PHOTO_REF, "maxwidth": 1600}, headers=user["headers"])
    assert wide.status_code == 200
    assert query([r for r in google.requests if r.url.path == "/maps/api/place/photo"][-1])["maxwidth"] == "1600"


@pytest.mark.parametrize(
    "params",
    [
        {"ref": "short"},
        {"ref": "bad ref with spaces and !!"},
        {"ref": PHOTO_REF + "&key=x"},
        {"ref": "A" * 1001},
        {},
        {"ref": PHOTO_REF, "maxwidth": 0},
        {"ref": PHOTO_REF, "maxwidth": 1601},
        {"ref": PHOTO_REF, "maxwidth": "wide"},
    ],
)
async def test_photo_proxy_rejects_bad_input(google: Upstream, client: AsyncClient, params: dict) -> None:
    user = await sign_up_and_log_in(client, "badref@example.com")
    response = await client.get("/api/place-photo", params=params, headers=user["headers"])
    assert response.status_code == 400, response.text
    assert response.json()["status"] == "error"
    assert not [r for r in google.requests if r.url.path == "/maps/api/place/photo"]


async def test_photo_proxy_needs_a_signed_in_caller(google: Upstream, client: AsyncClient) -> None:
    response = await client.get("/api/place-photo", params={"ref": PHOTO_REF})
    assert response.status_code == 401
    assert not google.requests


async def test_photo_proxy_without_a_google_key_is_404(container: Container, client: AsyncClient) -> None:
    assert container.settings().google_maps_api_key is None
    user = await sign_up_and_log_in(client, "nokey@example.com")
    response = await client.get("/api/place-photo", params={"ref": PHOTO_REF}, headers=user["headers"])
    assert response.status_code == 404
    body = response.json()
    assert (body["status"], body["error"]) == ("error", NO_PHOTOS)


@pytest.mark.parametrize(
    "image",
    [
        pytest.param(httpx.Response(200, text="<html>quota</html>", headers={"Content-Type": "text/html"}), id="html"),
        pytest.param(httpx.Response(200, text="<svg/>", headers={"Content-Type": "image/svg+xml"}), id="svg"),
        pytest.param(
            httpx.Response(200, content=b"\xff\xd8" + b"\x00" * (5 * 1024 * 1024), headers={"Content-Type": "image/jpeg"}),
            id="over-5MB",
        ),
        pytest.param(httpx.Response(403, text=f"key {GOOGLE_KEY} is not authorized"), id="http-403-echoing-key"),
    ],
)
async def test_photo_proxy_refuses_bad_upstream_answers(
    google: Upstream, client: AsyncClient, image: httpx.Response
) -> None:
    google.image = image
    user = await sign_up_and_log_in(client, "upstream@example.com")
    response = await client.get("/api/place-photo", params={"ref": PHOTO_REF}, headers=user["headers"])
    assert response.status_code == 503, response.text
    assert response.json()["error"].startswith("Photo is unavailable:")
    assert_no_key(response)


async def test_photo_proxy_timeout_is_503_without_the_key(
    container: Container, upstream: Upstream, client: AsyncClient
) -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout(f"timed out fetching {request.url}", request=request)  # the message holds the key

    configure(container, upstream, google_maps_api_key=GOOGLE_KEY)
    container.http_client.override(providers.Object(httpx.AsyncClient(transport=httpx.MockTransport(timeout))))
    user = await sign_up_and_log_in(client, "timeout@example.com")
    response = await client.get("/api/place-photo", params={"ref": PHOTO_REF}, headers=user["headers"])
    assert response.status_code == 503
    assert_no_key(response)
