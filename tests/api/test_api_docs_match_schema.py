"""The public API's documentation (/docs/api, /docs/api-documentation) against the server's /schema:
every example answer in web/src/features/site/publicApiAnswers.json is valid for its operation's
response (no field missing, none extra, types and enums as documented), every documented operation
and parameter exists, and every /api/v1 operation is documented. A schema changed without the docs
fails here instead of misleading an integrator."""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from httpx import AsyncClient
from jsonschema import Draft202012Validator

from domain.webhooks import BatchOutcome, batch_event_body

SITE = Path(__file__).resolve().parents[2] / "web" / "src" / "features" / "site"
ANSWERS = json.loads((SITE / "publicApiAnswers.json").read_text())
REFERENCE_TS = (SITE / "publicApiReference.ts").read_text()
EXAMPLES_TS = (SITE / "publicApiExamples.ts").read_text()
PUBLIC_PREFIX = "/api/v1/"
METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def openapi() -> dict[str, Any]:
    # Made from the app's routes alone: no database is needed to read the schema.
    from entrypoints.asgi import app

    return app.openapi_schema.to_schema()


def public_operations(openapi: dict[str, Any]) -> set[str]:
    return {
        f"{method.upper()} {path}"
        for path, operations in openapi["paths"].items()
        if path.startswith(PUBLIC_PREFIX)
        for method in operations
        if method in METHODS
    }


def operation(openapi: dict[str, Any], name: str) -> dict[str, Any]:
    method, path = name.split(" ", 1)
    assert path in openapi["paths"], f"the docs name {path}, which /schema does not have"
    assert method.lower() in openapi["paths"][path], f"the docs name {name}, which /schema does not have"
    return openapi["paths"][path][method.lower()]


def strict(schema: Any) -> Any:  # noqa: ANN401
    """The schema with no undocumented fields allowed: an example with a field the server does not
    answer fails, as does one missing a field the server always answers."""
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
        return schema
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    return schema


def assert_valid(example: Any, schema: dict[str, Any], openapi: dict[str, Any], what: str) -> None:  # noqa: ANN401
    document = {**strict(copy.deepcopy(schema)), "components": strict(copy.deepcopy(openapi["components"]))}
    problems = [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:300]}"
        for error in Draft202012Validator(document).iter_errors(example)
    ]
    assert not problems, f"{what} does not match /schema:\n" + "\n".join(problems)


def json_schema_of(response: dict[str, Any]) -> dict[str, Any]:
    content = response.get("content", {})
    assert "application/json" in content, "the documented example is JSON, the answer is not"
    return content["application/json"]["schema"]


# --- operations --------------------------------------------------------------------------------

def test_every_public_operation_is_documented_and_every_documented_one_exists(openapi: dict[str, Any]) -> None:
    documented = set(ANSWERS["endpoints"])
    in_reference = {f"{m} {p}" for m, p in re.findall(r"method: '(\w+)', path: '([^']+)'", REFERENCE_TS)}
    assert in_reference == documented, "publicApiReference.ts and publicApiAnswers.json list different operations"
    assert documented == public_operations(openapi), (
        f"undocumented: {sorted(public_operations(openapi) - documented)}; "
        f"not in /schema: {sorted(documented - public_operations(openapi))}"
    )


@pytest.mark.parametrize("name", list(ANSWERS["endpoints"]))
def test_each_example_answer_matches_its_operation_response(name: str, openapi: dict[str, Any]) -> None:
    documented = ANSWERS["endpoints"][name]
    responses = operation(openapi, name)["responses"]
    status = str(documented["status"])
    assert status in responses, f"{name} is documented answering {status}; /schema says {sorted(responses)}"
    assert_valid(documented["answer"], json_schema_of(responses[status]), openapi, f"the example answer of {name}")


def test_the_error_body_example_is_the_error_body(openapi: dict[str, Any]) -> None:
    assert_valid(ANSWERS["errorBody"], {"$ref": "#/components/schemas/ErrorBody"}, openapi, "the error body example")


# --- parameters --------------------------------------------------------------------------------

def _parameters_in(text: str) -> set[tuple[str, str]]:
    """(name, where) of the `{ name: '...', where: '...' }` entries in a piece of publicApiReference.ts;
    a body entry may be named with its shape (`addresses: [{...}]`): its first word is the field."""
    return {(re.split(r"[:\s]", name)[0], where) for name, where in re.findall(r"name: '([^']+)', where: '(\w+)'", text)}


def documented_parameters() -> dict[str, set[tuple[str, str]]]:
    """Each operation's documented parameters, the shared constants (IDEMPOTENCY_KEY, ...) expanded."""
    bodies = dict(re.findall(r"const (\w+): Parameter(?:\[\])? = (.*?)\n(?:\]|\});?\n", REFERENCE_TS, re.S))
    constants = {name: _parameters_in(body) for name, body in bodies.items()}
    for name, body in bodies.items():  # a list of parameters may hold a shared one (BATCH_PARAMETERS)
        for other in bodies:
            if other != name and re.search(rf"\b{other}\b", body):
                constants[name] |= constants[other]
    table = REFERENCE_TS[REFERENCE_TS.index("export const PUBLIC_ENDPOINTS"):]
    starts = list(re.finditer(r"method: '(\w+)', path: '([^']+)'", table))
    found = {}
    for index, start in enumerate(starts):
        block = table[start.start(): starts[index + 1].start() if index + 1 < len(starts) else len(table)]
        parameters = _parameters_in(block)
        for constant, expanded in constants.items():
            if re.search(rf"\b{constant}\b", block):
                parameters |= expanded
        found[f"{start.group(1)} {start.group(2)}"] = parameters
    return found


def schema_parameters(openapi: dict[str, Any], name: str) -> set[tuple[str, str]]:
    op = operation(openapi, name)
    parameters = {(p["name"], p["in"]) for p in op.get("parameters", [])}
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body is not None:
        resolved = resolve(openapi, body)
        parameters |= {(field, "body") for field in resolved.get("properties", {})}
    return parameters


def resolve(openapi: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The component a schema names, through a `$ref` or a one-item `allOf` (a body with examples)."""
    while "$ref" in schema or len(schema.get("allOf", [])) == 1:
        schema = schema["allOf"][0] if "allOf" in schema else schema
        if "$ref" in schema:
            schema = openapi["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


@pytest.mark.parametrize("name", list(ANSWERS["endpoints"]))
def test_each_operation_documents_exactly_its_parameters(name: str, openapi: dict[str, Any]) -> None:
    documented = documented_parameters()[name]
    in_schema = schema_parameters(openapi, name)
    # job_id is the other name create_export reads the batch by; the docs say so in export_id's meaning.
    optional_aliases = {("job_id", "body")} if name == "POST /api/v1/export/create" else set()
    assert documented <= in_schema, f"{name} documents {sorted(documented - in_schema)}, which /schema does not have"
    missing = in_schema - documented - optional_aliases
    assert not missing, f"{name} does not document {sorted(missing)}"
    if optional_aliases:
        assert "job_id" in REFERENCE_TS


def test_the_download_examples_name_the_format_in_the_export_id(openapi: dict[str, Any]) -> None:
    download = operation(openapi, "GET /api/v1/export/download/{export_id}")
    assert "format" not in {p["name"] for p in download.get("parameters", [])}
    # The examples must not send a parameter the server ignores.
    assert not re.search(r"export/download/[^\s\"'`]*\?format=", EXAMPLES_TS)
    assert 'params={"format"' not in EXAMPLES_TS
    # They poll until a status the server answers.
    statuses = set(resolve(openapi, {"$ref": "#/components/schemas/ExportStatus"})["properties"]["status"]["enum"])
    polled = set(re.findall(r'status\["status"\] in \(([^)]*)\)', EXAMPLES_TS)[0].replace('"', "").replace(" ", "").split(","))
    assert polled <= statuses


# --- the webhook event -------------------------------------------------------------------------

def shape(value: Any) -> Any:  # noqa: ANN401
    """The keys, nested, of a JSON value: what must match between an example and the real thing."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value[:1]]
    return type(value).__name__ if value is not None else "null|any"


def test_the_webhook_event_example_is_the_event_the_server_sends() -> None:
    example = ANSWERS["webhookEvent"]
    data = example["data"]
    outcome = BatchOutcome(job_id=data["job_id"], status=data["status"], rows=data["rows"], error=data["error"])
    created = datetime.fromisoformat(example["created_at"].replace("Z", "+00:00")).astimezone(UTC)
    assert json.loads(batch_event_body(example["id"], outcome, created)) == example


# --- the 401s (#26, item 9) ----------------------------------------------------------------------

def test_the_guides_401_examples_are_the_ones_every_public_operation_documents(openapi: dict[str, Any]) -> None:
    guide = {body["code"]: body for body in ANSWERS["unauthenticated"]}
    assert set(guide) == {"missing_credentials", "invalid_api_key", "invalid_token"}
    for body in guide.values():
        assert_valid(body, {"$ref": "#/components/schemas/ErrorBody"}, openapi, f"the 401 example {body['code']}")
    for name in sorted(public_operations(openapi)):
        documented = operation(openapi, name)["responses"]["401"]
        examples = {e["value"]["code"]: e["value"] for e in documented["content"]["application/json"]["examples"].values()}
        assert examples == guide, f"{name}: the guide's 401 examples differ from /schema's"
        for code in guide:
            assert f"`{code}`" in documented["description"], name
    errors_401 = dict(re.findall(r"\['(\d{3})', '([^']*)'\]", REFERENCE_TS))["401"]
    assert all(code in errors_401 for code in guide)


def test_every_public_listing_documents_its_paging(openapi: dict[str, Any]) -> None:
    listings = ["GET /api/v1/data/history/{address_id}", "GET /api/v1/exports", "GET /api/v1/webhooks/deliveries"]
    for name in listings:
        assert {("offset", "query"), ("limit", "query")} <= schema_parameters(openapi, name), name
        answer = resolve(openapi, json_schema_of(operation(openapi, name)["responses"]["200"]))
        assert {"offset", "next_offset"} <= set(answer["properties"]), name
        assert "next_offset" in ANSWERS["endpoints"][name]["answer"], name
