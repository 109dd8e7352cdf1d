"""Rules of the public API's keys, tokens, scopes and daily plans, with in-memory stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from adapters.security.access_tokens import JwtAccessTokens
from adapters.security.api_tokens import JwtApiTokens
from application.errors import Forbidden, InvalidInput, NotAuthenticated, NotFound, TooManyRequests
from application.api_keys import require_scope
from application.ports.public_api import ApiCaller
from application.ports.accounts import AccessClaims
from domain.accounts import Role, User
from domain.api_access import (
    KEY_PREFIX,
    ApiScope,
    Plan,
    PlanError,
    UserPlan,
    api_key_hash,
    day_key,
    next_reset,
    parse_scopes,
)
from tests.fakes_api import SECRET, in_memory_api

ANN = AccessClaims("ann")
BOB = AccessClaims("bob")


async def test_a_new_key_is_shown_once_and_only_its_hash_and_prefix_are_kept() -> None:
    world = in_memory_api()
    created = await world.keys.create(ANN, "  Rating tool ", ["read"])

    assert created.key.startswith(KEY_PREFIX) and len(created.key) == len(KEY_PREFIX) + 32
    stored = world.store.rows[created.record.id]
    assert stored.key_hash == api_key_hash(created.key) != created.key
    assert created.key.startswith(stored.prefix) and len(stored.prefix) < 16
    assert stored.name == "Rating tool"
    assert created.key not in repr(stored)


async def test_two_keys_differ() -> None:
    world = in_memory_api()
    first = await world.keys.create(ANN, "a", ["read"])
    second = await world.keys.create(ANN, "b", ["read"])
    assert first.key != second.key


@pytest.mark.parametrize(
    ("name", "scopes"), [("", ["read"]), ("x" * 101, ["read"]), ("ok", []), ("ok", ["write"]), ("ok", ["read", "admin"])]
)
async def test_a_key_needs_a_name_and_known_scopes(name: str, scopes: list[str]) -> None:
    with pytest.raises(InvalidInput):
        await in_memory_api().keys.create(ANN, name, scopes)


async def test_keys_are_listed_for_their_owner_only_and_revocation_is_owner_scoped() -> None:
    world = in_memory_api()
    anns = await world.keys.create(ANN, "ann's", ["read", "batch"])
    await world.keys.create(BOB, "bob's", ["read"])

    assert [k.name for k in await world.keys.keys(ANN)] == ["ann's"]
    with pytest.raises(NotFound):
        await world.keys.revoke(BOB, anns.record.id)
    assert (await world.keys.by_key(anns.key)).user_id == "ann"

    await world.keys.revoke(ANN, anns.record.id)
    assert await world.keys.keys(ANN) == []
    with pytest.raises(NotFound):
        await world.keys.revoke(ANN, anns.record.id)  # revoked already


async def test_a_revoked_key_and_its_tokens_stop_working_at_once() -> None:
    world = in_memory_api()
    created = await world.keys.create(ANN, "k", ["read"])
    issued = await world.keys.issue_token(created.key, "read")
    assert (await world.keys.by_token(issued.token)).key_id == created.record.id

    await world.keys.revoke(ANN, created.record.id)

    with pytest.raises(NotAuthenticated):
        await world.keys.by_key(created.key)
    with pytest.raises(NotAuthenticated):
        await world.keys.by_token(issued.token)


@pytest.mark.parametrize("key", ["", "nonsense", KEY_PREFIX + "x" * 32])
async def test_unknown_keys_are_refused(key: str) -> None:
    with pytest.raises(NotAuthenticated):
        await in_memory_api().keys.by_key(key)


async def test_using_a_key_records_when() -> None:
    world = in_memory_api()
    created = await world.keys.create(ANN, "k", ["read"])
    assert world.store.rows[created.record.id].last_used_at is None
    await world.keys.by_key(created.key)
    assert world.store.rows[created.record.id].last_used_at == world.clock.now()


async def test_a_token_carries_only_scopes_the_key_has() -> None:
    world = in_memory_api()
    read_only = await world.keys.create(ANN, "k", ["read"])
    with pytest.raises(Forbidden):
        await world.keys.issue_token(read_only.key, "read batch")
    with pytest.raises(InvalidInput):
        await world.keys.issue_token(read_only.key, "everything")

    both = await world.keys.create(ANN, "k2", ["read", "batch"])
    narrowed = await world.keys.issue_token(both.key, "batch")
    caller = await world.keys.by_token(narrowed.token)
    assert caller.scopes == {ApiScope.BATCH}
    with pytest.raises(Forbidden):
        require_scope(caller, ApiScope.READ)
    assert (await world.keys.issue_token(both.key, "")).caller.scopes == {ApiScope.READ, ApiScope.BATCH}


async def test_an_api_token_expires() -> None:
    world = in_memory_api()
    created = await world.keys.create(ANN, "k", ["read"])
    issued = await world.keys.issue_token(created.key, "read")
    world.clock.advance(timedelta(seconds=issued.expires_in))
    with pytest.raises(NotAuthenticated):
        await world.keys.by_token(issued.token)


def test_api_tokens_and_web_session_tokens_are_not_interchangeable() -> None:
    api_tokens = JwtApiTokens(SECRET)
    web_tokens = JwtAccessTokens(SECRET)
    api_token = api_tokens.issue(ApiCaller("ann", "key-1", frozenset({ApiScope.READ})))
    web_token = web_tokens.issue(User("ann", "ann@example.com", None, None, Role.USER, datetime.now(UTC)))

    assert web_tokens.verify(api_token) is None
    assert api_tokens.verify(web_token) is None
    assert api_tokens.verify(api_token) == ApiCaller("ann", "key-1", frozenset({ApiScope.READ}))


# --- plans and daily limits -------------------------------------------------------------


def test_plans_and_their_daily_limits() -> None:
    assert UserPlan(Plan.STANDARD).daily_limit == 100
    assert UserPlan(Plan.PREMIUM).daily_limit == 1000
    assert UserPlan(Plan.ENTERPRISE, 25_000).daily_limit == 25_000
    for wrong in (lambda: UserPlan(Plan.ENTERPRISE), lambda: UserPlan(Plan.ENTERPRISE, 0),
                  lambda: UserPlan(Plan.PREMIUM, 5000)):
        with pytest.raises(PlanError):
            wrong()


def test_parse_scopes() -> None:
    assert parse_scopes("read, batch") == {ApiScope.READ, ApiScope.BATCH}
    for wrong in ("", "  ", "read write"):
        with pytest.raises(ValueError):
            parse_scopes(wrong)


def test_days_are_counted_in_utc_and_reset_at_utc_midnight() -> None:
    late_in_new_york = datetime(2026, 3, 1, 23, 30, tzinfo=UTC) - timedelta(hours=5)  # 18:30 UTC
    assert day_key(late_in_new_york) == "2026-03-01"
    assert next_reset(datetime(2026, 2, 28, 23, 59, 59, tzinfo=UTC)) == datetime(2026, 3, 1, tzinfo=UTC)


async def test_new_users_are_on_standard_with_100_requests_a_day_then_429_until_midnight() -> None:
    world = in_memory_api()
    world.clock.advance(timedelta(hours=14))  # 23:00 UTC
    for n in range(1, 101):
        standing = await world.plans.charge("ann")
        assert standing.remaining == 100 - n
    assert standing.limit == 100 and standing.plan is Plan.STANDARD

    with pytest.raises(TooManyRequests) as refused:
        await world.plans.charge("ann")
    assert refused.value.code == "daily_limit_reached"
    assert refused.value.retry_after == 3600
    assert refused.value.details == {"limit": 100, "remaining": 0, "reset": int(next_reset(world.clock.now()).timestamp()), "requested": 1}
    assert "100" in refused.value.message and "standard" in refused.value.message

    world.clock.advance(timedelta(hours=1))  # a new UTC day
    assert (await world.plans.charge("ann")).remaining == 99
    assert (await world.plans.standing("bob")).used == 0  # each user counts apart


async def test_an_admin_sets_a_plan_enforced_from_the_next_request() -> None:
    world = in_memory_api()
    world.users["ann"] = Role.USER
    assert (await world.plans.set_plan("ann", "premium", None)).daily_limit == 1000
    assert (await world.plans.charge("ann")).limit == 1000
    await world.plans.set_plan("ann", "enterprise", 2)
    await world.plans.charge("ann")
    with pytest.raises(TooManyRequests):
        await world.plans.charge("ann")


@pytest.mark.parametrize(("plan", "limit"), [("gold", None), ("enterprise", None), ("standard", 5)])
async def test_a_wrong_plan_is_refused_with_what_to_send(plan: str, limit: int | None) -> None:
    world = in_memory_api()
    world.users["ann"] = Role.USER
    with pytest.raises(InvalidInput):
        await world.plans.set_plan("ann", plan, limit)


async def test_a_plan_for_an_unknown_user_is_not_found() -> None:
    with pytest.raises(NotFound):
        await in_memory_api().plans.set_plan("nobody", "premium", None)


async def test_last_used_is_written_at_most_once_a_minute() -> None:
    world = in_memory_api()
    created = await world.keys.create(ANN, "k", ["read"])
    writes = []
    mark_used = world.store.mark_used

    async def counting(key_id: str, at: datetime) -> None:
        writes.append(at)
        await mark_used(key_id, at)

    world.store.mark_used = counting  # type: ignore[method-assign]
    for _ in range(5):
        await world.keys.by_key(created.key)
        world.clock.advance(timedelta(seconds=10))
    world.clock.advance(timedelta(seconds=20))
    await world.keys.by_key(created.key)
    assert len(writes) == 2


# --- one address, one request -------------------------------------------------------------


def public_api_world():  # noqa: ANN201
    from application.public_api import PublicApi
    from tests.fakes import in_memory_lookup

    from tests.fakes_api import InMemoryAnswers

    api_world = in_memory_api()
    lookup = in_memory_lookup()
    return PublicApi(lookup.service, api_world.plans, InMemoryAnswers(), api_world.clock), api_world, lookup


READER = ApiCaller("ann", "key-1", frozenset({ApiScope.READ}))


async def test_an_assessment_costs_one_request_and_a_failed_one_costs_nothing() -> None:
    from application.errors import ProviderUnavailable

    api, world, lookup = public_api_world()
    assessment = await api.risk_assessment(READER, "1 Main St, Anchorage, AK 99503")
    assert assessment.answer.location.county_fips == "02020"
    assert assessment.standing.used == 1 and assessment.standing.remaining == 99

    with pytest.raises(NotFound):
        await api.risk_assessment(READER, "1 Main St, Nowhere, AK 99999")

    async def failing(address, point):  # noqa: ANN001, ANN202
        raise ProviderUnavailable("The places provider did not answer.")

    lookup.places.occupants_at = failing  # type: ignore[method-assign]
    with pytest.raises(ProviderUnavailable):
        await api.risk_assessment(READER, "1 Main St, Anchorage, AK 99503")
    with pytest.raises(InvalidInput):
        await api.risk_assessment(READER, "not an address")
    assert (await world.plans.standing("ann")).used == 1


async def test_an_assessment_needs_the_read_scope_and_is_refused_past_the_limit() -> None:
    api, world, lookup = public_api_world()
    with pytest.raises(Forbidden):
        await api.risk_assessment(ApiCaller("ann", "key-1", frozenset({ApiScope.BATCH})), "1 Main St, Anchorage, AK 99503")
    world.users["ann"] = Role.USER
    await world.plans.set_plan("ann", "enterprise", 1)
    await api.risk_assessment(READER, "1 Main St, Anchorage, AK 99503")
    calls_before = lookup.places.calls
    with pytest.raises(TooManyRequests):
        await api.risk_assessment(READER, "1 Main St, Anchorage, AK 99503")
    assert lookup.places.calls == calls_before  # refused before any provider is called


def test_an_address_id_names_one_address_line_and_nothing_else() -> None:
    from domain.api_access import address_id, address_of

    line = "701 5th Ave, Seattle, WA 98104"
    assert address_of(address_id(line)) == line
    assert address_id(line) != address_id(line.upper())
    for wrong in ("", "adr_", "adr_!!", "adr_" + "A" * 3, line, address_id(line) + "A"):
        assert address_of(wrong) is None, wrong


async def test_an_address_search_costs_one_request_and_calls_no_places_provider() -> None:
    api, world, lookup = public_api_world()
    found = await api.search_address(READER, "1 Main St, Anchorage, AK 99503", limit=5, country="us")
    [candidate] = found.candidates
    assert candidate.location.county_fips == "02020" and lookup.places.calls == 0
    assert (await api.risk_for(READER, candidate.address_id)).answer.location.county_fips == "02020"
    with pytest.raises(InvalidInput):
        await api.search_address(READER, "1 Main St, Anchorage, AK 99503", limit=5, country="CA")
    with pytest.raises(NotFound):
        await api.search_address(READER, "1 Main St, Nowhere, AK 99999", limit=5, country="US")
    with pytest.raises(NotFound):
        await api.risk_for(READER, "adr_nothing")
    assert (await world.plans.standing("ann")).used == 2



async def test_the_history_of_an_address_holds_the_callers_own_answers_of_the_period() -> None:
    from datetime import date

    api, world, _ = public_api_world()
    found = await api.search_address(READER, "1 Main St, Anchorage, AK 99503", limit=5, country="US")
    await api.risk_for(READER, found.candidates[0].address_id)
    world.clock.advance(timedelta(days=2))
    await api.risk_assessment(READER, "1 Main St, Anchorage, AK 99503")
    await api.risk_assessment(ApiCaller("bob", "key-2", frozenset({ApiScope.READ})), "1 Main St, Anchorage, AK 99503")
    await api.risk_assessment(READER, "2 Main St, Anchorage, AK 99503")
    identifier = found.candidates[0].address_id

    everything = await api.history(READER, identifier, None, None)
    assert [a.answered_at for a in everything.answers] == [world.clock.now(), world.clock.now() - timedelta(days=2)]
    first_day = world.clock.now().date() - timedelta(days=2)
    only_first = await api.history(READER, identifier, first_day, first_day)
    assert len(only_first.answers) == 1
    assert (await api.history(READER, identifier, date(2020, 1, 1), date(2020, 1, 2))).answers == []
    used = everything.standing.used
    assert used == (await world.plans.standing("ann")).used  # reading history costs nothing
    with pytest.raises(InvalidInput):
        await api.history(READER, identifier, first_day, first_day - timedelta(days=1))
    with pytest.raises(NotFound):
        await api.history(READER, "adr_x", None, None)


async def test_todays_api_use_across_users_for_the_administrators() -> None:
    world = in_memory_api()
    assert (await world.plans.today()).requests == 0
    for user in ("ann", "ann", "bob"):
        await world.plans.charge(user)
    today = await world.plans.today()
    assert (today.requests, today.callers) == (3, 2)
    world.clock.advance(timedelta(days=1))
    assert (await world.plans.today()).requests == 0
