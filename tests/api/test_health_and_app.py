from httpx import AsyncClient


async def test_health_and_ready(client: AsyncClient) -> None:
    assert (await client.get("/health")).json() == {"status": "ok"}
    ready = await client.get("/ready")
    assert ready.status_code == 200
    assert ready.json()["database"] == "ok"


async def test_unknown_api_path_is_a_json_404(client: AsyncClient) -> None:
    for path in ("/api/nope", "/api/auth/nope/deeper", "/api/search-results/x/y/z"):
        response = await client.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-type"].startswith("application/json")
        assert response.json()["status"] == "error"


async def test_openapi_and_offline_swagger_ui(client: AsyncClient) -> None:
    spec = (await client.get("/schema/openapi.json")).json()
    assert "/api/auth/login" in spec["paths"]
    page = (await client.get("/schema")).text
    assert "cdn." not in page and "unpkg" not in page
    asset = await client.get("/schema-assets/swagger-ui-bundle.js")
    assert asset.status_code == 200 and len(asset.content) > 100_000


async def test_every_response_carries_a_request_id(client: AsyncClient) -> None:
    response = await client.get("/health")
    assert len(response.headers["x-request-id"]) == 32


async def test_client_routes_load_the_web_app(client: AsyncClient, container, tmp_path) -> None:  # noqa: ANN001
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><div id=root></div>")
    from dataclasses import replace

    container.settings.override(replace(container.settings(), web_dist=tmp_path))
    for path in ("/", "/profile", "/search-result/abc", "/forgot-password", "/reset-password?token=x"):
        response = await client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html"), path
        assert "<div id=root>" in response.text
