"""`make run` applies .env when there is one, as .env.example says (#26, item 10), and a variable
set on the command line wins over the file."""

from __future__ import annotations

import subprocess
from pathlib import Path

MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"


def _planned(directory: Path, target: str) -> str:
    """What make would run for the target, without running it."""
    return subprocess.run(["make", "-n", "-f", str(MAKEFILE), target], cwd=directory, capture_output=True,
                          text=True, check=False).stdout


def test_run_migrate_and_data_apply_dotenv_without_overriding_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").touch()  # what the install steps' stamps are made from
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package-lock.json").write_text("{}")
    assert "dotenv" not in _planned(tmp_path, "migrate")
    (tmp_path / ".env").write_text("PERILSCOPE_ENV=development\n")
    for target, command in (("migrate", "perilscope db upgrade"), ("data", "perilscope data load"),
                            ("run", "perilscope serve")):
        line = next(line for line in _planned(tmp_path, target).splitlines() if command in line)
        assert line.startswith(".venv/bin/dotenv -f .env run --no-override -- "), line


def test_the_dotenv_runner_keeps_what_the_command_line_set(tmp_path: Path) -> None:
    dotenv = Path(MAKEFILE.parent, ".venv/bin/dotenv")
    (tmp_path / ".env").write_text("DATABASE_URL=from-file\nPERILSCOPE_VAR_DIR=        # default var/\n")
    shown = subprocess.run(
        [str(dotenv), "-f", ".env", "run", "--no-override", "--", "sh", "-c", 'echo "$DATABASE_URL|$PERILSCOPE_VAR_DIR|"'],
        cwd=tmp_path, capture_output=True, text=True, check=True, env={"PATH": "/usr/bin:/bin", "DATABASE_URL": "cmd"},
    ).stdout.strip()
    assert shown == "cmd||"
