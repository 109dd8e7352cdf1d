"""What batches may cost: a monthly allowance of batch rows for regular users, a storage cap
per user (uploads and exports together), and how long an unused upload is kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from application.errors import QuotaExceeded, StorageFull
from application.ports.accounts import AccessClaims, UserRoles
from application.ports.batch import BatchRowLedger, StorageMeter
from application.ports.clock import Clock
from application.ports.settings import SystemSettingsStore
from domain.accounts import Role
from domain.batch_input import readable_size
from domain.quota import month_key


@dataclass(frozen=True, slots=True)
class BatchLimits:
    storage_bytes: int
    upload_retention: timedelta


@dataclass(frozen=True, slots=True)
class RowReservation:
    """Rows charged to a user's month; given back with `BatchAllowance.release`."""

    user_id: str
    month: str
    rows: int


@dataclass(frozen=True, slots=True)
class BatchUsage:
    batch_rows_used: int
    batch_rows_limit: int | None  # None: unlimited (admins)
    batch_rows_remaining: int | None
    storage_bytes_used: int
    storage_bytes_limit: int


def rows_exceeded_message(rows: int, remaining: int, limit: int, what: str = "file") -> str:
    """`what` names the door the rows came in by: an uploaded file, or a batch sent to the public API."""
    smaller = "Upload a smaller file" if what == "file" else f"Send a smaller {what}"
    return (
        f"Monthly batch row allowance reached: this {what} has {rows:,} rows and {remaining:,} of your "
        f"{limit:,} batch rows remain this month. {smaller}, or contact an administrator "
        "to raise your allowance."
    )


# How many bytes a batch's stored files take: its export is its chunks' Parquet files (issue #27:
# some tens of bytes a row, at most 100, and a few tens of kilobytes of schema a chunk) and a
# manifest. Used only to refuse a job at its start that could never fit; the bytes as stored are
# checked at its finish.
STORED_BYTES_PER_ROW_ESTIMATE = 100
STORED_BYTES_PER_JOB_ESTIMATE = 32 * 1024


def storage_full_message(used: int, adding: int, limit: int, what: str = "this file", then: str = "upload again") -> str:
    return (
        f"Storage limit reached: you use {readable_size(used)} of your {readable_size(limit)} and {what} "
        f"needs {readable_size(adding)}. Delete old exports from your Batch Export History, then {then}."
    )


def batch_storage_estimate(rows: int, upload_bytes: int) -> int:
    """What a batch of `rows` will keep while it runs and after: its export, and its chunks' copy of the upload."""
    return rows * STORED_BYTES_PER_ROW_ESTIMATE + STORED_BYTES_PER_JOB_ESTIMATE + upload_bytes


class BatchAllowance:
    def __init__(
        self,
        ledger: BatchRowLedger,
        storage: StorageMeter,
        settings: SystemSettingsStore,
        clock: Clock,
        limits: BatchLimits,
        roles: UserRoles,
    ) -> None:
        self._ledger = ledger
        self._storage = storage
        self._settings = settings
        self._clock = clock
        self.limits = limits
        self._roles = roles

    async def _row_limit(self, caller: AccessClaims) -> int | None:
        """None for admins; the role is the stored one, never the token's."""
        if await self._roles.role_of(caller.user_id) is Role.ADMIN:
            return None
        return (await self._settings.current()).monthly_batch_row_limit

    async def reserve_rows(self, caller: AccessClaims, rows: int, what: str = "file") -> RowReservation:
        """Charge `rows` to the caller's month, atomically, whichever door they come in by (an
        upload's job, a public API batch): one allowance per user."""
        month = month_key(self._clock.now())
        limit = await self._row_limit(caller)
        # A file larger than the whole allowance never fits, so it never touches the ledger.
        if (limit is not None and rows > limit) or not await self._ledger.reserve(caller.user_id, month, rows, limit):
            used = await self._ledger.used(caller.user_id, month)
            raise QuotaExceeded(
                rows_exceeded_message(rows, max(0, (limit or 0) - used), limit or 0, what),
                code="batch_rows_exceeded", details={"limit": limit, "remaining": max(0, (limit or 0) - used)},
            )
        return RowReservation(caller.user_id, month, rows)

    async def release(self, reservation: RowReservation) -> None:
        await self._ledger.release(reservation.user_id, reservation.month, reservation.rows)

    def refuse_storage(self, used: int, adding: int, what: str = "this file", then: str = "upload again") -> StorageFull:
        return StorageFull(
            storage_full_message(used, adding, self.limits.storage_bytes, what, then),
            details={"limit": self.limits.storage_bytes, "used": used, "needed": adding},
        )

    def has_room(self, used: int, adding: int) -> bool:
        return used + adding <= self.limits.storage_bytes

    async def usage(self, caller: AccessClaims) -> BatchUsage:
        used = await self._ledger.used(caller.user_id, month_key(self._clock.now()))
        limit = await self._row_limit(caller)
        return BatchUsage(
            batch_rows_used=used,
            batch_rows_limit=limit,
            batch_rows_remaining=None if limit is None else max(0, limit - used),
            storage_bytes_used=await self._storage.storage_used(caller.user_id),
            storage_bytes_limit=self.limits.storage_bytes,
        )
