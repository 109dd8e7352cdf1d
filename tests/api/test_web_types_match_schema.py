"""The web app's hand-written types (web/src/api/types.ts) against the server's /schema: every
field the web relies on (not optional there) is one the server documents, so a renamed or
dropped field fails here instead of in a user's browser."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from httpx import AsyncClient

WEB_SRC = Path(__file__).resolve().parents[2] / "web" / "src"
TYPES_TS = WEB_SRC / "api" / "types.ts"
WEBHOOKS_TS = WEB_SRC / "features" / "profile" / "webhooksApi.ts"
EXPORT_ROWS_TS = WEB_SRC / "features" / "exports" / "exportRowsApi.ts"
# web interface -> the schema component the server answers with
PAIRS = {
    "SearchResult": "SearchResultBody",
    "ScoreReceipt": "ReceiptBody",
    "Occupant": "OccupantBody",
    "RecentSearch": "RecentSearchBody",
    "NearbySearchResponse": "NearbySearchBody",
    "RecentSearchesResponse": "RecentSearchesBody",
    "StoredSearchResponse": "StoredSearchBody",
    "PortfolioSummary": "PortfolioBody",
    "PortfolioHeadline": "Headline",
    "PerilDistribution": "PerilDistribution",
    "CountyExposure": "CountyExposure",
    "PortfolioValue": "ValueSummary",
    "RiskyLocation": "RiskyLocation",
    "SectorMix": "SectorMix",
    "TractSummary": "TractSummary",
    "TractDistribution": "TractDistribution",
}
# A feature's own requests keep their types beside them (STYLE §6).
FEATURE_PAIRS = {
    (WEBHOOKS_TS, "WebhookSigningSecret"): "SigningSecretBody",
    (WEBHOOKS_TS, "WebhookAttempt"): "WebhookAttemptBody",
    (WEBHOOKS_TS, "WebhookDelivery"): "WebhookDeliveryBody",
    (WEBHOOKS_TS, "WebhookDeliveries"): "WebhookDeliveriesBody",
    (EXPORT_ROWS_TS, "ExportRowsPage"): "ExportRowsBody",
    (EXPORT_ROWS_TS, "ExportRow"): "ViewerRow",
    (EXPORT_ROWS_TS, "FilterChoices"): "FilterChoicesBody",
    (EXPORT_ROWS_TS, "FilterChoice"): "FilterChoiceBody",
}


def interface_fields(source: str, name: str) -> dict[str, bool]:
    """{field: required} of `export interface name { ... }`."""
    match = re.search(rf"export interface {name} \{{(.*?)\n\}}", source, re.S)
    assert match, f"interface {name} is not in types.ts"
    fields = {}
    for line in match.group(1).splitlines():
        field = re.match(r"\s+(\w+)(\??):", line)
        if field:
            fields[field.group(1)] = field.group(2) != "?"
    return fields


@pytest.fixture
async def components(client: AsyncClient) -> dict:
    schema = (await client.get("/schema/openapi.json")).json()
    return schema["components"]["schemas"]


@pytest.mark.parametrize(("interface", "component"), PAIRS.items())
async def test_every_field_the_web_needs_is_documented(interface: str, component: str, components: dict) -> None:
    assert_documented(TYPES_TS, interface, component, components)


def assert_documented(path: Path, interface: str, component: str, components: dict) -> None:
    documented = set(components[component]["properties"])
    needed = {field for field, required in interface_fields(path.read_text(), interface).items() if required}
    assert needed <= documented, f"{interface} needs {sorted(needed - documented)}, which {component} does not document"


@pytest.mark.parametrize(("source", "component"), FEATURE_PAIRS.items(), ids=[name for _, name in FEATURE_PAIRS])
async def test_every_field_a_feature_needs_is_documented(source: tuple[Path, str], component: str, components: dict) -> None:
    assert_documented(*source, component, components)
