""".env.example is the settings' documentation, checked against the Settings class (issue #27: it
said chunks of 2,000 rows while the code's default was 5,000): every variable that
Settings.from_env reads is in it, nothing else is, and every value it gives is the code's default,
so copying it to .env changes nothing until someone edits it. An empty value is allowed for a
setting that is unset by default, or whose default its comment explains (it depends on another)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from pathlib import Path

import dotenv
import pytest

from entrypoints import settings as settings_module
from entrypoints.settings import Settings

EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"
SECRET = {"PERILSCOPE_SECRET_KEY": "k" * 48}  # so no secret file is made under var/
# Read by boto3 itself, not by Settings, and documented beside the S3 settings.
READ_BY_LIBRARIES = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}
# Set by `perilscope worker --workers N` for its own processes: not the operator's to set.
SET_BY_COMMANDS = {"PERILSCOPE_WORKER_PROCESSES"}


class _Recording(dict):
    """An environment that notes every variable asked for."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(values)
        self.asked: set[str] = set()

    def get(self, key, default=None):  # noqa: ANN001, ANN201
        self.asked.add(key)
        return super().get(key, default)


def variables_read() -> set[str]:
    # The OIDC issuer's id and secret are asked for only once an issuer (and id) is given.
    env = _Recording({**SECRET, "OIDC_ISSUER_URL": "https://idp.example", "OIDC_CLIENT_ID": "id"})
    Settings.from_env(env)
    return env.asked


def documented() -> dict[str, tuple[str, str]]:
    """Each variable of .env.example: (its value as `make run`'s dotenv reads it, the comment on
    its line and the comment lines right above it)."""
    values = dotenv.dotenv_values(EXAMPLE)
    entries, comments = {}, []
    for line in EXAMPLE.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comments.append(stripped)
        elif "=" in stripped:
            name, _, rest = stripped.partition("=")
            inline = rest.split(" #", 1)[1] if " #" in rest else ""
            entries[name.strip()] = (values[name.strip()] or "", " ".join([*comments, inline]))
            comments = []
        else:
            comments = []
    return entries


def fields_by_variable() -> dict[str, set[str]]:
    """Which Settings field each variable sets, read from from_env's source: the keyword the
    variable's get(...) is inside (or the local variable that keyword is given)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(Settings.from_env)))
    locals_read: dict[str, set[str]] = {}
    fields: dict[str, set[str]] = {}

    def names_in(node: ast.AST) -> set[str]:
        found = {c.args[0].value for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id == "get" and c.args and isinstance(c.args[0], ast.Constant)}
        for name in (n.id for n in ast.walk(node) if isinstance(n, ast.Name)):
            found |= locals_read.get(name, set())
        return found

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            locals_read[node.targets[0].id] = names_in(node.value)
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "cls"):
        for keyword in call.keywords:
            for variable in names_in(keyword.value):
                fields.setdefault(variable, set()).add(keyword.arg)
    for provider in settings_module.OIDC_PROVIDERS:  # _oidc_clients builds these names
        for part in ("CLIENT_ID", "CLIENT_SECRET"):
            fields[f"{provider.upper()}_{part}"] = {"oidc_clients"}
    for name in ("OIDC_ISSUER_URL", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"):
        fields[name] = {"oidc_clients"}
    return fields


def test_every_variable_the_settings_read_is_documented_and_no_other() -> None:
    read = variables_read() - SET_BY_COMMANDS
    listed = set(documented()) - READ_BY_LIBRARIES
    assert not read - listed, f"read by Settings.from_env, missing from .env.example: {sorted(read - listed)}"
    assert not listed - read, f"in .env.example, read by nothing: {sorted(listed - read)}"


def test_every_settings_field_is_set_by_some_variable() -> None:
    set_by_some = set().union(*fields_by_variable().values())
    unset = {f.name for f in dataclasses.fields(Settings)} - set_by_some - {"worker_processes"}
    assert not unset, f"Settings fields no environment variable sets: {sorted(unset)}"


@pytest.mark.parametrize("name", sorted(name for name, (value, _) in documented().items() if value))
def test_each_value_given_is_the_codes_default(name: str) -> None:
    value, _ = documented()[name]
    assert Settings.from_env({**SECRET, name: value}) == Settings.from_env(SECRET), (
        f".env.example gives {name}={value}, which is not the code's default: say the default there "
        "(or change the default in entrypoints/settings.py and here together)")


def _unset_by_default(field_names: set[str]) -> bool:
    defaults = Settings()
    return all(getattr(defaults, field) in (None, "", ()) for field in field_names)


@pytest.mark.parametrize("name", sorted(name for name, (value, _) in documented().items()
                                        if not value and name not in READ_BY_LIBRARIES))
def test_a_variable_left_empty_is_unset_by_default_or_its_comment_gives_the_default(name: str) -> None:
    _, comment = documented()[name]
    fields = fields_by_variable().get(name, set())
    explained = any(word in comment.lower() for word in ("default", "unset"))
    assert _unset_by_default(fields) or explained, (
        f"{name} is empty in .env.example but {sorted(fields)} has a default: write the default as its value, "
        "or say in its comment what it defaults to")


def test_the_chunk_size_documented_is_the_one_the_code_uses() -> None:
    """The drift issue #27 found, spelled out."""
    assert documented()["PERILSCOPE_BATCH_CHUNK_ROWS"][0] == str(Settings().batch_chunk_rows)
