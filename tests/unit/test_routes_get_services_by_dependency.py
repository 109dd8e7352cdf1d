"""STYLE §4: a route gets its services from a Litestar dependency in its signature, never from the container."""

import ast
from pathlib import Path

HTTP = Path(__file__).resolve().parents[2] / "entrypoints" / "http"
# Every module of route handlers: the API's, and the web app's pages.
ROUTE_MODULES = [*sorted((HTTP / "routes").glob("*.py")), HTTP / "spa.py"]


def test_no_route_module_reads_the_container() -> None:
    readers = []
    for module in ROUTE_MODULES:
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Name) and node.id == "container_of":
                readers.append(f"{module.name}:{node.lineno}")
    assert readers == []

