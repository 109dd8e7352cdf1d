"""The lookup's hot statements on SQLite, run on the event loop's own thread.

aiosqlite runs every statement in a worker thread, and each hop there and back costs about
0.4 ms on a 2-core machine: five of them made the write four fifths of a lookup. A plain sqlite3
connection does the same charge-and-insert in a fraction of a millisecond, which blocks the loop
for less than the hops did. The write takes the process's one write turn like every other writer,
and never waits on the loop's thread: when another process holds SQLite's write lock it goes the
async way, where busy_timeout waits in aiosqlite's thread. Everything else keeps the async engine."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from adapters.db.engine import BEGIN_IMMEDIATE, configure_sqlite
from adapters.db.search_repositories import (
    Sessions,
    SqlSearchStore,
    INSERT_SEARCH,
    LATEST_ANSWER,
    USED,
    charge_parameters,
    charge_statement,
    search_row,
)
from adapters.db.writer import SqlWriter, is_database_locked
from adapters.db.result_codec import decode_typed
from application.ports.lookup import StoredSearch
from domain.lookup_result import LookupResult

# Blocking the event loop for longer than this would stall every other request; reads in WAL
# mode practically never wait, and a write that would is handed to the async engine.
LOOP_BUSY_TIMEOUT_MS = 10


class SqliteLoopSearchStore(SqlSearchStore):
    def __init__(self, sessions: Sessions, writer: SqlWriter, database_url: str) -> None:
        super().__init__(sessions, writer)
        url = make_url(database_url).set(drivername="sqlite")  # the synchronous pysqlite driver
        self._sync = create_engine(url, connect_args={"timeout": LOOP_BUSY_TIMEOUT_MS / 1000})
        configure_sqlite(self._sync, busy_timeout_ms=LOOP_BUSY_TIMEOUT_MS)

    async def add_charged(self, search: StoredSearch, month: str, limit: int | None) -> bool:
        async with self._writer.turn():
            try:
                return self._add_charged_on_loop(search, month, limit)
            except OperationalError as error:
                if not is_database_locked(error):
                    raise
        # Another process is writing: wait for it off the loop.
        return await super().add_charged(search, month, limit)

    def _add_charged_on_loop(self, search: StoredSearch, month: str, limit: int | None) -> bool:
        with (
            self._sync.connect().execution_options(**{BEGIN_IMMEDIATE: True}) as connection,
            connection.begin() as transaction,
        ):
            charge = charge_statement("sqlite", limit is not None)
            if connection.execute(charge, charge_parameters(search.user_id, month, limit)).first() is None:
                transaction.rollback()
                return False
            connection.execute(INSERT_SEARCH, search_row(search))
        return True

    async def used(self, user_id: str, month: str) -> int:
        with self._sync.connect() as connection:
            return connection.scalar(USED, {"user_id": user_id, "month": month}) or 0

    async def latest_answer(self, building_key: str, since: datetime) -> LookupResult | None:
        with self._sync.connect() as connection:
            stored = connection.scalar(LATEST_ANSWER, {"building_key": building_key, "since": since})
        return decode_typed(stored)

    def close(self) -> None:
        self._sync.dispose()
