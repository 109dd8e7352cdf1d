"""The lookup's rules on in-memory ports (tests/fakes.py): milliseconds each, no database."""

from __future__ import annotations

from datetime import timedelta

import pytest

from application.errors import NotFound, QuotaExceeded
from application.ports.accounts import AccessClaims
from domain.accounts import Role
from tests.fakes import LookupWorld, in_memory_lookup

ANN, BOB = AccessClaims("ann"), AccessClaims("bob")


@pytest.fixture
def world() -> LookupWorld:
    world = in_memory_lookup()
    world.users.update(ann=Role.USER, bob=Role.USER)
    return world


async def test_a_repeat_within_24_hours_is_served_from_storage_and_still_charged(world: LookupWorld) -> None:
    await world.service.look_up(ANN, "4800 Cordova St, Anchorage, AK 99503")
    world.clock.advance(timedelta(hours=23))
    repeat = await world.service.look_up(BOB, "4800 Cordova Street, Anchorage, AK 99503")
    assert world.places.calls == 1 and repeat.provenance.from_cache is True
    assert repeat.query == "4800 Cordova Street, Anchorage, AK 99503" and repeat.address.street == "4800 Cordova Street"
    assert await world.searches.used("bob", "2025-03") == 1
    world.clock.advance(timedelta(hours=2))
    await world.service.look_up(BOB, "4800 Cordova St, Anchorage, AK 99503")
    assert world.places.calls == 2


async def test_a_cached_answer_never_serves_an_address_that_leads_to_another_county(world: LookupWorld) -> None:
    first = await world.service.look_up(ANN, "100 Main St, Anchorage, AK 99501")
    other = await world.service.look_up(BOB, "100 Main St, Kenai, AK 99501")
    assert first.location.county_fips == "02020" and other.location.county_fips == "02122"
    assert not other.provenance.from_cache and world.places.calls == 2


async def test_the_county_is_chosen_with_its_confidence_and_alternatives(world: LookupWorld) -> None:
    result = await world.service.look_up(ANN, "100 Main St, Anchorage, AK 99501")
    location = result.location
    assert (location.method, location.confidence, location.low_confidence) == ("zip_share", 0.6, True)
    [other] = location.alternatives
    assert (other.county_fips, other.share, other.total_score) == ("02122", 0.4, 44.0)
    assert result.perils.total == 31.2


async def test_an_address_located_nowhere_is_refused_and_not_charged(world: LookupWorld) -> None:
    with pytest.raises(NotFound, match="nothing was charged"):
        await world.service.look_up(ANN, "1 Nowhere Rd, Atlantis, ZZ 00000")
    assert await world.searches.used("ann", "2025-03") == 0


async def test_the_monthly_limit_follows_the_stored_role(world: LookupWorld) -> None:
    world.settings.settings = type(world.settings.settings)(monthly_search_limit=1)
    await world.service.look_up(ANN, "4800 Cordova St, Anchorage, AK 99503")
    with pytest.raises(QuotaExceeded):
        await world.service.look_up(ANN, "4800 Cordova St, Anchorage, AK 99503")
    world.users["ann"] = Role.ADMIN  # promoted: the same token is now unlimited
    await world.service.look_up(ANN, "4800 Cordova St, Anchorage, AK 99503")
