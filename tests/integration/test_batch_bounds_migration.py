"""0006_batch_bounds on a database with batches in it: sizes are filled in, exports stored from a
caller's rows before the revision become client-supplied, and jobs keep their uploads' records."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from alembic import command

from entrypoints.migrate import alembic_config

WHEN = "2026-11-01 09:00:00.000000"


def test_existing_batches_are_sized_and_client_exports_marked(tmp_path: Path) -> None:
    path = tmp_path / "before.db"
    config = alembic_config(f"sqlite+aiosqlite:///{path}")
    command.upgrade(config, "0004_admin_settings")
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO user_account (id, email, role, created_at) VALUES ('u1', 'a@example.com', 'user', ?)", (WHEN,))
        db.execute("INSERT INTO uploaded_file VALUES ('f1', 'u1', 'p.csv', 'Zoë,1', 1, ?)", (WHEN,))
        db.execute("INSERT INTO batch_job (id, user_id, file_id, status, stage, done, total, created_at) "
                   "VALUES ('j1', 'u1', 'f1', 'done', 'export', 1, 1, ?)", (WHEN,))
        db.execute("INSERT INTO export_file VALUES ('e1', 'u1', 'j1', 'p_export.csv', 'abc', ?)", (WHEN,))
        db.execute("INSERT INTO export_file VALUES ('e2', 'u1', NULL, 'batch_export.csv', 'abcdef', ?)", (WHEN,))

    command.upgrade(config, "0006_batch_bounds")

    with sqlite3.connect(path) as db:
        db.execute("PRAGMA foreign_keys=ON")
        assert db.execute("SELECT size_bytes FROM uploaded_file").fetchall() == [(6,)]  # 'ë' is two bytes
        assert db.execute("SELECT id, size_bytes, source FROM export_file ORDER BY id").fetchall() == [
            ("e1", 3, "computed"), ("e2", 6, "client"),
        ]
        db.execute("DELETE FROM uploaded_file WHERE id = 'f1'")
        assert db.execute("SELECT id, file_id FROM batch_job").fetchall() == [("j1", None)]
