"""Swagger UI at /schema from files on this server, without inline script, so the page keeps to a
Content-Security-Policy with `script-src 'self'` (entrypoints/http/security_headers.py)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from litestar import Request, Router, get
from litestar.openapi.plugins import SwaggerRenderPlugin

# Swagger UI 5 (which renders OpenAPI 3.1) as shipped inside the swagger-ui-py wheel.
SWAGGER_ASSETS = Path(str(files("swagger_ui") / "static"))
ASSETS_URL = "/schema-assets"
INIT_SCRIPT_PATH = "/swagger-init.js"

# Litestar's own Swagger page passes the whole document in an inline script; this one lets
# Swagger UI fetch it. validatorUrl null: no badge fetched from a third-party validator.
INIT_SCRIPT = """window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/schema/openapi.json',
    dom_id: '#swagger-container',
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout',
  });
});
"""


class SelfHostedSwagger(SwaggerRenderPlugin):
    def __init__(self) -> None:
        super().__init__(
            path="/",
            js_url=f"{ASSETS_URL}/swagger-ui-bundle.js",
            css_url=f"{ASSETS_URL}/swagger-ui.css",
            standalone_preset_js_url=f"{ASSETS_URL}/swagger-ui-standalone-preset.js",
            favicon=f'<link rel="icon" type="image/png" href="{ASSETS_URL}/favicon-32x32.png">',
            style=f'<link rel="stylesheet" href="{ASSETS_URL}/index.css">',
        )

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        return f"""<!DOCTYPE html>
<html lang="en">
  <head>
    <title>{openapi_schema["info"]["title"]}</title>
    {self.favicon}
    <meta charset="utf-8"/>
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link href="{self.css_url}" rel="stylesheet">
    {self.style}
    <script src="{self.js_url}"></script>
    <script src="{self.standalone_preset_js_url}"></script>
    <script src="/schema{INIT_SCRIPT_PATH}"></script>
  </head>
  <body>
    <div id="swagger-container"></div>
  </body>
</html>""".encode()

    def receive_router(self, router: Router) -> None:
        # The OAuth2 redirect page of the parent class has inline script, and no flow here uses it.
        router.register(get(INIT_SCRIPT_PATH, media_type="text/javascript", sync_to_thread=False, include_in_schema=False)(_init_script))


def _init_script() -> str:
    return INIT_SCRIPT
