"""The public API over HTTP on SQLite and PostgreSQL: keys made on /settings, /api/v1 with a key
or a bearer token, scopes, revocation, cross-user isolation and the daily limit's headers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from httpx import AsyncClient
from sqlalchemy import select, text

from adapters.db.api_tables import ApiKeyRow
from domain.api_access import api_key_hash
from domain.perils import HAZARDS
from entrypoints.container import Container
from tests.conftest import sign_up_admin, sign_up_and_log_in

SEATTLE = "701 5th Ave, Seattle, WA 98104"
MIAMI = "100 Biscayne Blvd, Miami, FL 33130"


async def create_key(client: AsyncClient, user: dict, scopes: list[str] | None = None, name: str = "Rating tool") -> dict:
    response = await client.post("/api/api-keys", json={"name": name, "scopes": scopes or ["read"]}, headers=user["headers"])
    assert response.status_code == 201, response.text
    return response.json()


async def assess(client: AsyncClient, headers: dict, address: str = SEATTLE):  # noqa: ANN201
    return await client.get("/api/v1/risk-assessment", params={"address": address}, headers=headers)


async def test_a_key_is_shown_once_and_the_database_keeps_only_its_hash(client: AsyncClient, container: Container) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    created = await create_key(client, ann, ["read", "batch"])
    key = created["key"]
    assert key.startswith("ps_live_") and len(key) == 40
    assert created["api_key"]["scopes"] == ["batch", "read"] and key.startswith(created["api_key"]["prefix"])

    listed = (await client.get("/api/api-keys", headers=ann["headers"])).json()
    assert [k["name"] for k in listed["keys"]] == ["Rating tool"]
    assert key not in str(listed)
    assert listed["usage"] == {**listed["usage"], "plan": "standard", "limit": 100, "used": 0, "remaining": 100}

    async with container.session_factory()() as session:
        row = await session.scalar(select(ApiKeyRow).where(ApiKeyRow.id == created["api_key"]["id"]))
        assert row.key_hash == api_key_hash(key)
        every_text = " ".join(str(v) for v in (await session.execute(text("SELECT * FROM api_key"))).all())
    assert key not in every_text


async def test_a_key_answers_one_address_with_scores_location_provenance_and_headers(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = (await create_key(client, ann))["key"]

    response = await assess(client, {"X-API-Key": key}, MIAMI)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["address"] == MIAMI
    assert set(body["scores"]) == {h.code for h in HAZARDS}
    assert body["scores"]["AVLN"] is None  # not applicable in Miami-Dade: null, never 0
    assert body["ratings"]["AVLN"] == "Not Applicable"
    assert "HRCN" in [risk["type"] for risk in body["top_risks"]] and len(body["top_risks"]) == 3
    assert body["total_score"] > 0 and body["risk_level"]
    assert body["location"]["county_fips"] == "12086" and body["location"]["confidence"] is not None
    assert body["provenance"]["nri_version"].startswith("1.20") and body["provenance"]["datasets"]
    assert response.headers["X-RateLimit-Limit"] == "100"
    assert response.headers["X-RateLimit-Remaining"] == "99"
    tomorrow = datetime.now(UTC).date() + timedelta(days=1)
    assert int(response.headers["X-RateLimit-Reset"]) == int(datetime(tomorrow.year, tomorrow.month, tomorrow.day, tzinfo=UTC).timestamp())
    # The web's monthly search quota is not the API's: it is untouched.
    stats = (await client.get("/api/auth/get-search-stats", headers=ann["headers"])).json()["stats"]
    assert stats["current_month_searches"] == 0


async def test_a_bearer_token_works_for_its_scopes_and_never_as_a_web_session(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = (await create_key(client, ann, ["read", "batch"]))["key"]

    issued = await client.post("/api/v1/auth/token", json={"api_key": key, "scope": "batch"})
    assert issued.status_code == 200, issued.text
    token = issued.json()
    assert token["token_type"] == "bearer" and token["expires_in"] == 900 and token["scope"] == "batch"
    bearer = {"Authorization": f"Bearer {token['access_token']}"}

    verified = await client.get("/api/v1/auth/verify", headers=bearer)
    assert verified.status_code == 200
    assert verified.json()["scopes"] == ["batch"] and verified.json()["user_id"] == ann["uid"]
    assert verified.headers["X-RateLimit-Remaining"] == "100"  # verifying costs nothing

    lacking = await assess(client, bearer)
    assert lacking.status_code == 403 and lacking.json()["code"] == "insufficient_scope"
    assert (await client.get("/api/auth/me", headers=bearer)).status_code == 401  # not a web session
    assert (await client.get("/api/v1/auth/verify", headers=ann["headers"])).status_code == 401  # nor the reverse


async def test_token_requests_with_a_wrong_key_or_scope_are_refused(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = (await create_key(client, ann, ["read"]))["key"]
    assert (await client.post("/api/v1/auth/token", json={"api_key": "ps_live_nope", "scope": "read"})).status_code == 401
    assert (await client.post("/api/v1/auth/token", json={"api_key": key, "scope": "batch"})).status_code == 403
    assert (await client.post("/api/v1/auth/token", json={"api_key": key, "scope": "write"})).status_code == 400
    missing = await client.get("/api/v1/auth/verify")
    assert missing.status_code == 401 and "X-API-Key" in missing.json()["error"]


async def test_a_revoked_key_and_its_token_stop_at_once_and_only_the_owner_may_revoke(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    created = await create_key(client, ann)
    key, key_id = created["key"], created["api_key"]["id"]
    token = (await client.post("/api/v1/auth/token", json={"api_key": key, "scope": "read"})).json()["access_token"]

    assert (await client.delete(f"/api/api-keys/{key_id}", headers=bob["headers"])).status_code == 404
    assert (await client.get("/api/api-keys", headers=bob["headers"])).json()["keys"] == []
    assert (await client.get("/api/v1/auth/verify", headers={"X-API-Key": key})).status_code == 200

    assert (await client.delete(f"/api/api-keys/{key_id}", headers=ann["headers"])).status_code == 200

    assert (await client.get("/api/v1/auth/verify", headers={"X-API-Key": key})).status_code == 401
    assert (await client.get("/api/v1/auth/verify", headers={"Authorization": f"Bearer {token}"})).status_code == 401
    assert (await client.get("/api/api-keys", headers=ann["headers"])).json()["keys"] == []
    assert (await client.delete(f"/api/api-keys/{key_id}", headers=ann["headers"])).status_code == 404


async def test_last_used_is_recorded(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = (await create_key(client, ann))["key"]
    assert (await client.get("/api/api-keys", headers=ann["headers"])).json()["keys"][0]["last_used_at"] is None
    await client.get("/api/v1/auth/verify", headers={"X-API-Key": key})
    assert (await client.get("/api/api-keys", headers=ann["headers"])).json()["keys"][0]["last_used_at"] is not None


async def test_the_daily_limit_set_by_an_admin_refuses_with_429_and_retry_after(
    client: AsyncClient, container: Container
) -> None:
    admin = await sign_up_admin(client, container, "root@example.com")
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = (await create_key(client, ann))["key"]
    assert (await client.post("/api/admin/update-user-plan", json={"uid": ann["uid"], "plan": "enterprise", "daily_limit": 2},
                              headers=ann["headers"])).status_code == 403
    changed = await client.post(
        "/api/admin/update-user-plan", json={"uid": ann["uid"], "plan": "enterprise", "daily_limit": 2}, headers=admin["headers"]
    )
    assert changed.status_code == 200 and changed.json()["api_plan"] == {"plan": "enterprise", "daily_limit": 2}
    info = (await client.get(f"/api/admin/user-info/{ann['uid']}", headers=admin["headers"])).json()
    assert info["user"]["api_plan"] == {"plan": "enterprise", "daily_limit": 2}

    remaining = [(await assess(client, {"X-API-Key": key})).headers["X-RateLimit-Remaining"] for _ in range(2)]
    assert remaining == ["1", "0"]
    refused = await assess(client, {"X-API-Key": key})

    assert refused.status_code == 429
    assert refused.json()["code"] == "daily_limit_reached" and "2 requests a day" in refused.json()["error"]
    assert 0 < int(refused.headers["Retry-After"]) <= 86400
    assert refused.headers["X-RateLimit-Limit"] == "2" and refused.headers["X-RateLimit-Remaining"] == "0"


async def test_plan_changes_are_checked(client: AsyncClient, container: Container) -> None:
    admin = await sign_up_admin(client, container, "root@example.com")
    ann = await sign_up_and_log_in(client, "ann@example.com")
    for body, status in (
        ({"uid": ann["uid"], "plan": "enterprise"}, 400),
        ({"uid": ann["uid"], "plan": "premium", "daily_limit": 5}, 400),
        ({"uid": ann["uid"], "plan": "gold"}, 400),
        ({"uid": "nobody", "plan": "premium"}, 404),
    ):
        response = await client.post("/api/admin/update-user-plan", json=body, headers=admin["headers"])
        assert response.status_code == status, (body, response.text)


async def test_unreadable_and_unknown_addresses_are_not_charged(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = (await create_key(client, ann))["key"]
    unreadable = await assess(client, {"X-API-Key": key}, "701 5th Ave")  # neither a ZIP code nor a city
    assert unreadable.status_code == 400
    nowhere = await assess(client, {"X-API-Key": key}, "1 Main St, Nowhere, ZZ 00001")
    assert nowhere.status_code == 404, nowhere.text
    assert nowhere.json()["code"] == "address_not_found"
    assert (await client.get("/api/api-keys", headers=ann["headers"])).json()["usage"]["used"] == 0


async def test_key_input_is_checked(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    for body in ({"name": "", "scopes": ["read"]}, {"name": "x", "scopes": []}, {"name": "x", "scopes": ["write"]}, {"name": "x"}):
        response = await client.post("/api/api-keys", json=body, headers=ann["headers"])
        assert response.status_code == 400, (body, response.text)


async def test_search_gives_an_address_id_whose_risk_answer_matches_the_one_call_answer(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = {"X-API-Key": (await create_key(client, ann))["key"]}

    found = await client.get("/api/v1/search/address", params={"query": SEATTLE, "limit": 3}, headers=key)

    assert found.status_code == 200, found.text
    [candidate] = found.json()["candidates"]
    assert candidate["address"] == SEATTLE and candidate["address_id"].startswith("adr_")
    assert candidate["location"]["county_fips"] == "53033" and candidate["location"]["lat"] is not None
    assert found.headers["X-RateLimit-Remaining"] == "99"

    by_id = await client.get(f"/api/v1/data/risk/{candidate['address_id']}", params={"include_occupants": "true"}, headers=key)
    assert by_id.status_code == 200, by_id.text
    one_call = (await assess(client, key, SEATTLE)).json()
    body = by_id.json()
    assert body["scores"] == one_call["scores"] and body["total_score"] == one_call["total_score"]
    assert "occupants" not in one_call and len(body["occupants"]) >= 20
    assert all(o["naics_code"] != "N/A" for o in body["occupants"])  # unknown is null here
    assert body["occupant_coverage"]["covered"] is True and "occupant_coverage" not in one_call
    assert by_id.headers["X-RateLimit-Remaining"] == "98"


async def test_occupants_outside_every_occupant_source_are_unknown_in_the_api_not_an_empty_list(
    client: AsyncClient,
) -> None:
    ann = await sign_up_and_log_in(client, "ann-coverage@example.com")
    key = {"X-API-Key": (await create_key(client, ann))["key"]}
    found = await client.get("/api/v1/search/address", params={"query": "100 Biscayne Blvd, Miami, FL 33130"},
                             headers=key)
    [candidate] = found.json()["candidates"]
    miami = await client.get(f"/api/v1/data/risk/{candidate['address_id']}", params={"include_occupants": "true"},
                             headers=key)
    assert miami.status_code == 200, miami.text
    body = miami.json()
    assert "occupants" not in body and body["occupant_coverage"]["covered"] is False
    assert "Seattle, WA" in body["occupant_coverage"]["covers"]


async def test_search_refusals_cost_nothing(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = {"X-API-Key": (await create_key(client, ann))["key"]}
    abroad = await client.get("/api/v1/search/address", params={"query": SEATTLE, "country": "CA"}, headers=key)
    assert abroad.status_code == 400 and abroad.json()["code"] == "unsupported_country"
    nowhere = await client.get("/api/v1/search/address", params={"query": "1 Main St, Nowhere, ZZ 00001"}, headers=key)
    assert nowhere.status_code == 404 and "No matching addresses" in nowhere.json()["error"]
    for unknown in ("adr_!!", "nonsense", "adr_"):
        response = await client.get(f"/api/v1/data/risk/{unknown}", headers=key)
        assert response.status_code == 404, (unknown, response.text)
    assert (await client.get("/api/api-keys", headers=ann["headers"])).json()["usage"]["used"] == 0


async def test_history_holds_only_the_callers_own_answers_for_that_address(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    bob = await sign_up_and_log_in(client, "bob@example.com")
    anns = {"X-API-Key": (await create_key(client, ann))["key"]}
    bobs = {"X-API-Key": (await create_key(client, bob))["key"]}
    found = await client.get("/api/v1/search/address", params={"query": MIAMI}, headers=anns)
    address_id = found.json()["candidates"][0]["address_id"]
    await client.get(f"/api/v1/data/risk/{address_id}", headers=anns)
    await assess(client, anns, MIAMI)
    await assess(client, anns, SEATTLE)
    await assess(client, bobs, MIAMI)

    history = await client.get(f"/api/v1/data/history/{address_id}", headers=anns)

    assert history.status_code == 200, history.text
    body = history.json()
    assert body["address"] == MIAMI and len(body["answers"]) == 2
    assert all(past["answer"]["location"]["county_fips"] == "12086" for past in body["answers"])
    assert body["answers"][0]["answered_at"] >= body["answers"][1]["answered_at"]
    assert history.headers["X-RateLimit-Remaining"] == "96"  # reading history costs nothing
    assert len((await client.get(f"/api/v1/data/history/{address_id}", headers=bobs)).json()["answers"]) == 1

    long_ago = await client.get(
        f"/api/v1/data/history/{address_id}", params={"from_date": "2020-01-01", "to_date": "2020-12-31"}, headers=anns
    )
    assert long_ago.status_code == 200 and long_ago.json()["answers"] == []
    reversed_dates = await client.get(
        f"/api/v1/data/history/{address_id}", params={"from_date": "2026-02-01", "to_date": "2026-01-01"}, headers=anns
    )
    assert reversed_dates.status_code == 400
    assert (await client.get("/api/v1/data/history/adr_unknown", headers=anns)).status_code == 404


async def test_administrators_see_todays_api_use(client: AsyncClient, container: Container) -> None:
    admin = await sign_up_admin(client, container, "root@example.com")
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = {"X-API-Key": (await create_key(client, ann))["key"]}
    await assess(client, key)
    await assess(client, key, MIAMI)
    stats = (await client.get("/api/admin/search-stats", headers=admin["headers"])).json()["stats"]
    assert (stats["api_requests_today"], stats["api_callers_today"]) == (2, 1)
    assert stats["total_searches"] == 0  # API look-ups are not the web's searches


# --- #26, item 9: the docs and the answers agree ------------------------------------------------

async def test_every_answer_to_a_known_caller_has_the_rate_limit_headers_errors_included(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = {"X-API-Key": (await create_key(client, ann, ["read"]))["key"]}
    token = (await client.post("/api/v1/auth/token", json={"api_key": key["X-API-Key"]})).json()["access_token"]
    assert (await assess(client, key)).status_code == 200  # one request used

    refusals = {
        "unreadable address (400)": await assess(client, key, "nothing to read"),
        "a query parameter out of range (400)": await client.get("/api/v1/search/address", params={"query": SEATTLE, "limit": 99}, headers=key),
        "an unknown query parameter (400)": await client.get("/api/v1/exports", params={"page": 2}, headers=key),
        "unknown address_id (404)": await client.get("/api/v1/data/history/adr_unknown", headers=key),
        "a scope the key lacks (403)": await client.get("/api/v1/export/status/nonsense", headers=key),
        "an unknown export, by token (403)": await client.get(
            "/api/v1/export/status/nonsense", headers={"Authorization": f"Bearer {token}"}),
        "a body not valid (400)": await client.post("/api/v1/search/batch", json={"addresses": "none"}, headers=key),
        "a token for a scope the key lacks (403)": await client.post(
            "/api/v1/auth/token", json={"api_key": key["X-API-Key"], "scope": "batch"}),
        "a token for no scope at all (400)": await client.post(
            "/api/v1/auth/token", json={"api_key": key["X-API-Key"], "scope": "write"}),
    }
    for what, response in refusals.items():
        assert response.status_code in (400, 403, 404), (what, response.text)
        assert response.headers.get("X-RateLimit-Limit") == "100", what
        assert response.headers.get("X-RateLimit-Remaining") == "99", what
        assert int(response.headers["X-RateLimit-Reset"]) > datetime.now(UTC).timestamp(), what

    # A 401 has no caller, so no standing to tell.
    for headers in ({}, {"X-API-Key": "ps_live_nope"}, {"Authorization": "Bearer nope"}):
        unknown = await client.get("/api/v1/data/history/adr_unknown", headers=headers)
        assert unknown.status_code == 401 and "X-RateLimit-Limit" not in unknown.headers


async def test_each_401_says_which_credential_is_wrong_with_its_documented_code(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    created = await create_key(client, ann, ["read"])
    token = (await client.post("/api/v1/auth/token", json={"api_key": created["key"]})).json()["access_token"]
    schema = (await client.get("/schema/openapi.json")).json()
    documented = schema["paths"]["/api/v1/auth/verify"]["get"]["responses"]["401"]
    examples = documented["content"]["application/json"]["examples"].values()

    answers = {
        "missing_credentials": await client.get("/api/v1/auth/verify"),
        "invalid_api_key": await client.get("/api/v1/auth/verify", headers={"X-API-Key": "ps_live_" + "x" * 32}),
        "invalid_token": await client.get("/api/v1/auth/verify", headers={"Authorization": "Bearer not.a.token"}),
    }
    await client.delete(f"/api/api-keys/{created['api_key']['id']}", headers=ann["headers"])
    answers["invalid_api_key (a token of a revoked key)"] = await client.get(
        "/api/v1/auth/verify", headers={"Authorization": f"Bearer {token}"})

    for expected, answer in answers.items():
        code = expected.split(" ")[0]
        assert answer.status_code == 401 and answer.json()["code"] == code, (expected, answer.text)
        assert f"`{code}`" in documented["description"]
        assert any(e["value"]["code"] == code and e["value"]["error"] == answer.json()["error"] for e in examples), code
    for path, operations in schema["paths"].items():
        for method, op in operations.items() if path.startswith("/api/v1/") else ():
            assert op["responses"]["401"] == documented, f"{method.upper()} {path}"


async def test_history_pages_by_offset_and_refuses_what_it_does_not_read(client: AsyncClient) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = {"X-API-Key": (await create_key(client, ann))["key"]}
    address_id = (await client.get("/api/v1/search/address", params={"query": MIAMI}, headers=key)).json()["candidates"][0]["address_id"]
    for _ in range(5):
        assert (await assess(client, key, MIAMI)).status_code == 200
    path = f"/api/v1/data/history/{address_id}"

    every = (await client.get(path, headers=key)).json()
    assert len(every["answers"]) == 5 and every["offset"] == 0 and every["next_offset"] is None
    pages, offset = [], 0
    while offset is not None:
        page = await client.get(path, params={"limit": 2, "offset": offset}, headers=key)
        assert page.status_code == 200, page.text
        pages.append(page.json()["answers"])
        offset = page.json()["next_offset"]
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [a["answered_at"] for p in pages for a in p] == [a["answered_at"] for a in every["answers"]]
    past_the_end = (await client.get(path, params={"offset": 50}, headers=key)).json()
    assert past_the_end["answers"] == [] and past_the_end["next_offset"] is None

    for params, code in (
        ({"cursor": "abc"}, "unknown_query_parameter"), ({"page": "2"}, "unknown_query_parameter"),
        ({"offset": "-1"}, "validation_error"), ({"offset": "abc"}, "validation_error"),
        ({"limit": "0"}, "validation_error"), ({"limit": "101"}, "validation_error"),
    ):
        refused = await client.get(path, params=params, headers=key)
        assert refused.status_code == 400 and refused.json()["code"] == code, (params, refused.text)
        assert refused.headers["X-RateLimit-Remaining"] == "94"
    unknown = (await client.get(path, params={"cursor": "abc"}, headers=key)).json()
    assert "cursor" in unknown["error"] and "offset" in unknown["error"]
    assert unknown["details"] == {"unknown": ["cursor"], "accepted": ["from_date", "limit", "offset", "to_date"]}


async def test_every_get_operation_refuses_a_query_parameter_it_does_not_read_and_names_those_it_does(
    client: AsyncClient,
) -> None:
    ann = await sign_up_and_log_in(client, "ann@example.com")
    key = {"X-API-Key": (await create_key(client, ann, ["read", "batch"]))["key"]}
    schema = (await client.get("/schema/openapi.json")).json()
    gets = {path: op["get"] for path, op in schema["paths"].items() if path.startswith("/api/v1/") and "get" in op}
    assert len(gets) >= 8

    for path, operation in gets.items():
        documented = sorted(p["name"] for p in operation.get("parameters", []) if p["in"] == "query")
        refused = await client.get(path.replace("{address_id}", "adr_x").replace("{export_id}", "x"),
                                   params={"include_ocupants": "true"}, headers=key)
        assert refused.status_code == 400 and refused.json()["code"] == "unknown_query_parameter", path
        assert refused.json()["details"] == {"unknown": ["include_ocupants"], "accepted": documented}, path
        assert "400" in operation["responses"], path
    assert (await client.get("/api/v1/auth/verify", headers=key)).json()["used_today"] == 0
