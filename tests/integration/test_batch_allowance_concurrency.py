"""Concurrent batch starts never take more rows than the monthly allowance, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

from dependency_injector import providers
from sqlalchemy import delete, select

from adapters.db.account_tables import MonthlyUsageRow, UserRow
from adapters.db.batch_tables import BatchJobRow, BatchRowUsageRow
from adapters.security.passwords import Argon2PasswordHasher
from application.errors import QuotaExceeded, StorageFull
from application.ports.accounts import AccessClaims
from application.ports.batch import BatchJob
from application.ports.public_api import ApiCaller
from domain.api_access import ApiScope
from domain.batch_input import SubmittedAddress
from domain.export import export_rows, to_csv
from domain.accounts import User
from domain.system_settings import SystemSettings
from entrypoints.container import Container, build_container
from tests.api.test_batch import CSV, _Forget
from tests.conftest import STRONG_PASSWORD, settings_for_tests
from tests.fakes import InMemorySystemSettings

STARTS = 8
ROW_LIMIT = 10  # room for three 3-row files, not four


@contextlib.asynccontextmanager
async def racing_user(database_url: str, row_limit: int | None = None, **settings: object
                      ) -> AsyncIterator[tuple[Container, User]]:
    """A container on the app's own engine (real commits: the rolled-back test transaction would
    serialise everything) and a new user of it, deleted afterwards; with `row_limit`, that monthly
    batch row allowance and a queue that runs nothing."""
    container = build_container(settings_for_tests(database_url, **settings))
    if row_limit is not None:
        container.system_settings.override(
            providers.Object(InMemorySystemSettings(SystemSettings(monthly_batch_row_limit=row_limit))))
        container.job_queue.override(providers.Object(_Forget()))
    container.password_hasher.override(Argon2PasswordHasher(time_cost=1, memory_cost_kib=1024))
    engine = container.engine()
    user = await container.accounts().create_user(f"{uuid.uuid4().hex}@example.com", STRONG_PASSWORD)
    try:
        yield container, user
    finally:
        async with engine.begin() as connection:
            await connection.execute(delete(UserRow).where(UserRow.id == user.id))
        container.search_store().close()
        await engine.dispose()


async def test_concurrent_starts_never_exceed_the_row_allowance(migrated_database_url: str) -> None:
    async with racing_user(migrated_database_url, ROW_LIMIT) as (container, user):
        caller = AccessClaims(user_id=user.id)
        service = container.batch()
        uploads = [await service.upload(caller, "portfolio.csv", CSV.encode()) for _ in range(STARTS)]

        outcomes = await asyncio.gather(*(service.start(caller, u.id) for u in uploads), return_exceptions=True)

        started = [o for o in outcomes if not isinstance(o, BaseException)]
        refused = [o for o in outcomes if isinstance(o, QuotaExceeded)]
        assert (len(started), len(refused)) == (3, STARTS - 3), outcomes
        async with container.engine().connect() as connection:
            rows_used = await connection.scalar(select(BatchRowUsageRow.rows_used).where(BatchRowUsageRow.user_id == user.id))
            searches = await connection.scalar(select(MonthlyUsageRow.used).where(MonthlyUsageRow.user_id == user.id))
            jobs = (await connection.scalars(select(BatchJobRow.id).where(BatchJobRow.user_id == user.id))).all()
        assert (rows_used, searches, len(jobs)) == (9, 3, 3)  # refused starts were given back their search


async def test_concurrent_api_batches_and_uploads_share_one_row_allowance(migrated_database_url: str) -> None:
    """Public API batches and web uploads race for one user's rows: never more than the allowance
    is taken, whichever door, and a refused API batch gives its plan requests back."""
    async with racing_user(migrated_database_url, ROW_LIMIT) as (container, user):
        caller, api_caller = AccessClaims(user_id=user.id), ApiCaller(user.id, "key-1", frozenset({ApiScope.BATCH}))
        addresses = [SubmittedAddress("701 5th Ave", "Seattle", "WA", "98104")] * 3  # as many rows as CSV
        service = container.batch()
        uploads = [await service.upload(caller, "portfolio.csv", CSV.encode()) for _ in range(STARTS // 2)]

        outcomes = await asyncio.gather(
            *(service.start(caller, u.id) for u in uploads),
            *(container.api_batches().submit(api_caller, addresses) for _ in range(STARTS // 2)),
            return_exceptions=True,
        )

        started = [o for o in outcomes if not isinstance(o, BaseException)]
        refused = [o for o in outcomes if isinstance(o, QuotaExceeded)]
        assert (len(started), len(refused)) == (3, STARTS - 3), outcomes
        async with container.engine().connect() as connection:
            rows_used = await connection.scalar(select(BatchRowUsageRow.rows_used).where(BatchRowUsageRow.user_id == user.id))
            jobs = (await connection.scalars(select(BatchJobRow.id).where(BatchJobRow.user_id == user.id))).all()
        api_started = sum(1 for o in started if not isinstance(o, BatchJob))
        plan_used = await container.api_plans().standing(user.id)
        assert (rows_used, len(jobs), plan_used.used) == (9, 3, 3 * api_started)


async def test_concurrent_exports_and_uploads_never_pass_the_storage_allowance(migrated_database_url: str) -> None:
    """Client-supplied exports (POST /api/export) and uploads race for one user's storage: each is
    checked and recorded atomically, so the files kept never pass the allowance."""
    rows = [{"address": "701 5th Ave, Seattle, WA 98104" + " (a note the client kept)" * 20}]
    size = len(to_csv(export_rows(rows)).encode())
    assert size > len(CSV.encode())
    limit = 3 * size + size // 2  # room for three exports, or a mix with uploads, never for all
    async with racing_user(migrated_database_url, user_storage_bytes=limit) as (container, user):
        caller = AccessClaims(user_id=user.id)
        service = container.batch()
        outcomes = await asyncio.gather(
            *(service.export_now(caller, rows) for _ in range(STARTS)),
            *(service.upload(caller, "portfolio.csv", CSV.encode()) for _ in range(STARTS)),
            return_exceptions=True,
        )

        unexpected = [o for o in outcomes if isinstance(o, BaseException) and not isinstance(o, StorageFull)]
        assert not unexpected, unexpected
        refused = [o for o in outcomes if isinstance(o, StorageFull)]
        assert refused and all("Delete old exports" in o.message for o in refused)
        used = await service.usage(caller)
        assert used.storage_bytes_used <= limit
        kept = sum(o.size_bytes for o in outcomes if not isinstance(o, BaseException))
        assert used.storage_bytes_used == kept  # every refused write left nothing behind
        exports = await service.exports(caller)
        assert all([await container.file_store().size(key) for e in exports for key in e.keys])
