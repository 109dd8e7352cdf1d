"""The one way a write transaction reaches the database.

SQLite admits one writer at a time. One SqlWriter, made once per process by the container and
given to every store that writes, queues this process's writers on an asyncio lock (a waiting
request costs nothing, where SQLite's busy handler sleeps and retries in a thread) and begins
each write with BEGIN IMMEDIATE, so another process's writer (a second server, the CLI) is waited
for by busy_timeout instead of failing a transaction that already read. A write that still cannot
get its turn is ServiceBusy (503, "try again"), never a 500. PostgreSQL has row locks and MVCC:
there the writer adds nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from adapters.db.engine import BEGIN_IMMEDIATE, SQLITE_BUSY_TIMEOUT_MS
from application.errors import ServiceBusy

BUSY_MESSAGE = "The database is busy with other changes. Please try again in a moment."
# Waiting in this process's queue is bounded like SQLite's own wait for another process.
TURN_WAIT_SECONDS = SQLITE_BUSY_TIMEOUT_MS / 1000


def is_database_locked(error: OperationalError) -> bool:
    """SQLite's SQLITE_BUSY / SQLITE_LOCKED, as pysqlite and aiosqlite report them."""
    text = str(error.orig)
    return "database is locked" in text or "database table is locked" in text or "database is busy" in text


class SqlWriter:
    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        bind = sessions.kw["bind"]
        self._sessions = sessions
        self._lock = asyncio.Lock() if bind.dialect.name == "sqlite" else None
        self._holder: asyncio.Task | None = None
        # Inside a test's shared connection the transaction has already begun.
        immediate = self._lock is not None and isinstance(bind, AsyncEngine)
        self._begin_options = {BEGIN_IMMEDIATE: True} if immediate else None

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold this process's single write slot (on SQLite) while the block writes."""
        if self._lock is None:
            yield
            return
        if self._holder is not None and self._holder is asyncio.current_task():
            # Not reentrant: a write begun inside another (say a store's write inside an open
            # unit of work) would wait for itself. A bug, so say so at once.
            raise RuntimeError("A write transaction was begun inside another one of the same task")
        if self._lock.locked():  # a timer only when there is a queue: the lookup's write is hot
            try:
                async with asyncio.timeout(TURN_WAIT_SECONDS):
                    await self._lock.acquire()
            except TimeoutError:
                raise ServiceBusy(BUSY_MESSAGE) from None
        else:
            await self._lock.acquire()  # free: returns at once, without giving up the loop
        self._holder = asyncio.current_task()
        try:
            yield
        except OperationalError as error:
            if is_database_locked(error):
                raise ServiceBusy(BUSY_MESSAGE) from error
            raise
        finally:
            self._holder = None
            self._lock.release()

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A session whose transaction may write; commit inside the block, or it rolls back."""
        async with self.turn(), self._sessions() as session:
            if self._begin_options:
                await session.connection(execution_options=self._begin_options)
            yield session

    async def execute(self, *statements) -> None:  # noqa: ANN002
        """Run statements in one write transaction and commit it."""
        async with self.session() as session:
            for statement in statements:
                await session.execute(statement)
            await session.commit()
