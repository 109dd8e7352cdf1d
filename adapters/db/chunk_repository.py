"""SQLAlchemy store of batch chunks: claims by conditional UPDATE, leases fenced by the claim's
number, where a result's files are and the progress written together, and one finisher per job.

Every write goes through the SqlWriter: on SQLite one write transaction at a time (so a claim's
read and its UPDATE cannot interleave with another's); on PostgreSQL a claim locks the chunk it
picks, skipping chunks locked by other claimants (FOR UPDATE SKIP LOCKED), and the UPDATE's own
condition still decides, the loser picking again."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, and_, case, exists, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import aliased

from adapters.db.batch_repository import insert_export, lock_owner, storage_used_in
from adapters.db.batch_tables import BatchChunkRow as Chunk
from adapters.db.batch_tables import BatchJobRow as Job
from adapters.db.writer import SqlWriter
from application.ports.batch import ExportFile
from application.ports.chunks import (
    ChunkFiles,
    ChunkOutput,
    ChunkSource,
    ClaimedChunk,
    FailedInput,
    JobChunks,
    NoRoomForExport,
    StoredChunkInput,
)
from domain.chunks import ChunkPlan

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
CLAIM_TRIES = 8  # concurrent claimants on PostgreSQL: each lost race picks the next chunk
RESULTS_PAGE = 200  # chunks' result keys read in one query while an export is assembled


def _expired(now: datetime):  # noqa: ANN202
    return and_(Chunk.status == RUNNING, Chunk.lease_expires_at < now)


def _held(chunk: ClaimedChunk):  # noqa: ANN202
    return and_(Chunk.job_id == chunk.job_id, Chunk.idx == chunk.plan.index, Chunk.status == RUNNING,
                Chunk.attempts == chunk.attempt, Chunk.lease_owner == chunk.owner)


def _splitting(job_id: str, owner: str):  # noqa: ANN202
    """The job, while `owner` holds its split turn."""
    return and_(Job.id == job_id, Job.splitter == owner, Job.chunks_total.is_(None))


def _of_unended_job():  # noqa: ANN202
    """A failed job's chunks are left alone (no claims, no tasks)."""
    return Chunk.job_id.in_(select(Job.id).where(Job.status.in_((QUEUED, RUNNING))))


def _unended(job_id):  # noqa: ANN001, ANN202
    return exists().where(Chunk.job_id == job_id, Chunk.status.in_((QUEUED, RUNNING)))


def _aware(value: datetime | str | None) -> datetime | None:
    """max() over a UTCDateTime column comes back untyped on SQLite (text)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


class SqlChunkStore:
    def __init__(self, sessions: async_sessionmaker[AsyncSession], writer: SqlWriter) -> None:
        self._sessions = sessions
        self._writer = writer

    async def begin_split(self, job_id: str, owner: str, now: datetime, until: datetime) -> int | None:
        async with self._writer.session() as session:
            taken = await session.execute(
                update(Job).where(
                    Job.id == job_id, Job.status.in_((QUEUED, RUNNING)), Job.chunks_total.is_(None),
                    or_(Job.splitter.is_(None), Job.splitter_expires_at < now),
                ).values(splitter=owner, splitter_expires_at=until)
            )
            if taken.rowcount != 1:
                await session.rollback()
                return None
            # Read after taking the turn: the job's row is ours now, so no other splitter adds more.
            stored = int(await session.scalar(select(func.count()).where(Chunk.job_id == job_id)) or 0)
            await session.commit()
        return stored

    async def renew_split(self, job_id: str, owner: str, until: datetime) -> bool:
        return await self._while_splitting(job_id, owner, splitter_expires_at=until)

    async def add_chunks(self, job_id: str, owner: str, chunks: Iterable[StoredChunkInput], now: datetime) -> bool:
        async with self._writer.session() as session:
            # Touching the job's row first fences a splitter whose turn was taken over, and makes a
            # concurrent taker wait for these chunks, then count them.
            held = await session.execute(update(Job).where(_splitting(job_id, owner)).values(splitter=owner))
            if held.rowcount != 1:
                await session.rollback()
                return False
            await session.execute(insert(Chunk), [
                {"job_id": job_id, "idx": chunk.plan.index, "first_row": chunk.plan.first_row,
                 "row_count": chunk.plan.row_count, "line_offset": chunk.line_offset, "input_key": chunk.input_key,
                 "input_bytes": chunk.input_bytes, "status": QUEUED, "attempts": 0, "enqueued_at": now,
                 "rows_failed": 0}
                for chunk in chunks
            ])
            await session.commit()
        return True

    async def end_split(self, job_id: str, owner: str, count: int) -> bool:
        # A total that is not the chunks stored would let the job finish without some of its rows.
        stored = select(func.count()).where(Chunk.job_id == job_id).scalar_subquery()
        return await self._while_splitting(job_id, owner, stored == count,
                                           chunks_total=count, splitter=None, splitter_expires_at=None)

    async def _while_splitting(self, job_id: str, owner: str, *also: ColumnElement[bool], **values: object) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(update(Job).where(_splitting(job_id, owner), *also).values(**values))
            await session.commit()
        return result.rowcount == 1

    async def queued_count(self, job_id: str) -> int:
        async with self._sessions() as session:
            return int(await session.scalar(
                select(func.count()).where(Chunk.job_id == job_id, Chunk.status == QUEUED)
            ) or 0)

    async def unsplit_jobs(self, now: datetime, limit: int) -> list[str]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Job.id).where(Job.status.in_((QUEUED, RUNNING)), Job.chunks_total.is_(None),
                                     or_(Job.splitter.is_(None), Job.splitter_expires_at < now))
                .order_by(Job.created_at).limit(limit)
            )
            return list(rows)

    async def claim(self, owner: str, now: datetime, lease_until: datetime, max_attempts: int,
                    exhausted: bool = False) -> ClaimedChunk | None:
        if exhausted:
            claimable = and_(_expired(now), Chunk.attempts >= max_attempts, _of_unended_job())
        else:
            claimable = and_(or_(Chunk.status == QUEUED, _expired(now)), Chunk.attempts < max_attempts,
                             _of_unended_job())
        other = aliased(Chunk)
        in_flight = (
            select(func.count()).where(other.job_id == Chunk.job_id, other.status == RUNNING,
                                       other.lease_expires_at >= now)
            .correlate(Chunk).scalar_subquery()
        )
        pick = (
            select(Chunk.job_id, Chunk.idx).join(Job, Job.id == Chunk.job_id).where(claimable)
            .order_by(in_flight, Job.last_claimed_at.asc().nulls_first(), Job.created_at, Chunk.idx)
            .limit(1)
            # PostgreSQL: a chunk another claimant is taking right now is passed over, not waited
            # for (SQLite has no row locks: its claims take turns on the SqlWriter).
            .with_for_update(of=Chunk, skip_locked=True)
        )
        async with self._writer.session() as session:
            for _ in range(CLAIM_TRIES):
                candidate = (await session.execute(pick)).first()
                if candidate is None:
                    break
                taken = (await session.execute(
                    update(Chunk).where(Chunk.job_id == candidate.job_id, Chunk.idx == candidate.idx, claimable)
                    .values(status=RUNNING, attempts=Chunk.attempts + 1, lease_owner=owner,
                            lease_expires_at=lease_until)
                    # `input` is NULL but in chunks split before the file store (migration 0015).
                    .returning(Chunk.attempts, Chunk.first_row, Chunk.row_count, Chunk.line_offset, Chunk.input_key,
                               Chunk.input)
                )).first()
                if taken is None:
                    continue  # another worker took it first
                await session.execute(
                    update(Job).where(Job.id == candidate.job_id).values(
                        last_claimed_at=now,
                        status=case((Job.status == QUEUED, RUNNING), else_=Job.status),
                        started_at=func.coalesce(Job.started_at, now),
                    )
                )
                await session.commit()
                return ClaimedChunk(
                    job_id=candidate.job_id, plan=ChunkPlan(candidate.idx, taken.first_row, taken.row_count),
                    source=ChunkSource(taken.input_key, taken.input), line_offset=taken.line_offset,
                    attempt=taken.attempts, owner=owner,
                )
            await session.rollback()
        return None

    async def renew(self, chunk: ClaimedChunk, lease_until: datetime, answered: int | None = None) -> bool:
        async with self._writer.session() as session:
            values: dict[str, object] = {"lease_expires_at": lease_until}
            if answered is not None:
                before = await session.scalar(select(Chunk.rows_answered).where(_held(chunk)).with_for_update())
                if before is None:
                    await session.rollback()
                    return False
                answered = min(answered, chunk.plan.row_count)
                if answered > before:  # a claim after one that died counts on from where that one got
                    values["rows_answered"] = answered
                    await session.execute(update(Job).where(Job.id == chunk.job_id)
                                          .values(done=Job.done + (answered - before)))
            result = await session.execute(update(Chunk).where(_held(chunk)).values(**values))
            if result.rowcount != 1:
                await session.rollback()
                return False
            await session.commit()
        return True

    async def complete(self, chunk: ClaimedChunk, result: ChunkFiles, now: datetime) -> bool:
        async with self._writer.session() as session:
            counted = await session.scalar(select(Chunk.rows_answered).where(_held(chunk)).with_for_update())
            if counted is None:
                await session.rollback()
                return False
            written = await session.execute(
                update(Chunk).where(_held(chunk)).values(
                    status=FAILED if result.failed else DONE, facts_key=result.facts_key,
                    scores_key=result.scores_key, result_bytes=result.size_bytes,
                    detail_columns=json.dumps(list(result.user_columns)), rows_failed=result.rows_failed,
                    rows_answered=chunk.plan.row_count,
                    error=result.error[:500] if result.error else None, finished_at=now, lease_expires_at=None,
                )
            )
            if written.rowcount != 1:
                await session.rollback()
                return False
            # Its rows not counted yet by the heartbeats: the job's progress ends at the chunk's rows.
            await session.execute(
                update(Job).where(Job.id == chunk.job_id).values(done=Job.done + (chunk.plan.row_count - counted))
            )
            await session.commit()
        return True

    async def release(self, chunk: ClaimedChunk, error: str, now: datetime) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(Chunk).where(_held(chunk)).values(
                    status=QUEUED, lease_expires_at=None, enqueued_at=now, error=error[:500],
                )
            )
            await session.commit()
        return result.rowcount == 1

    async def requeue_expired(self, now: datetime, max_attempts: int) -> int:
        async with self._writer.session() as session:
            result = await session.execute(
                update(Chunk).where(_expired(now), Chunk.attempts < max_attempts, _of_unended_job())
                .values(status=QUEUED, lease_expires_at=None, enqueued_at=now)
            )
            await session.commit()
        return result.rowcount

    async def requeue_stale(self, enqueued_before: datetime, now: datetime) -> int:
        busy = exists().where(Chunk.status == RUNNING, Chunk.lease_expires_at >= now)
        async with self._writer.session() as session:
            result = await session.execute(
                update(Chunk).where(Chunk.status == QUEUED, Chunk.enqueued_at < enqueued_before, ~busy,
                                    _of_unended_job())
                .values(enqueued_at=now)
            )
            await session.commit()
        return result.rowcount

    async def begin_finishing(self, job_id: str, owner: str, now: datetime, until: datetime) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(Job).where(
                    Job.id == job_id, Job.status == RUNNING, Job.chunks_total.is_not(None), ~_unended(job_id),
                    or_(Job.finisher.is_(None), Job.finisher_expires_at < now),
                ).values(stage="export", finisher=owner, finisher_expires_at=until)
            )
            await session.commit()
        return result.rowcount == 1

    async def renew_finishing(self, job_id: str, owner: str, until: datetime) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(Job).where(Job.id == job_id, Job.status == RUNNING, Job.finisher == owner)
                .values(finisher_expires_at=until)
            )
            await session.commit()
        return result.rowcount == 1

    async def finishable_jobs(self, now: datetime) -> list[str]:
        async with self._sessions() as session:
            rows = await session.scalars(
                select(Job.id).where(
                    Job.status == RUNNING, Job.chunks_total.is_not(None), ~_unended(Job.id),
                    or_(Job.finisher.is_(None), Job.finisher_expires_at < now),
                ).order_by(Job.created_at)
            )
            return list(rows)

    async def results(self, job_id: str) -> AsyncIterator[ChunkOutput]:
        # A page of chunks' keys per query (a 1,000,000-row job has 200 chunks: one query a chunk
        # was a second of its export's assembly).
        start = 0
        while True:
            async with self._sessions() as session:
                page = (await session.execute(
                    select(Chunk.idx, Chunk.first_row, Chunk.row_count, Chunk.facts_key, Chunk.scores_key,
                           Chunk.result_bytes, Chunk.detail_columns)
                    .where(Chunk.job_id == job_id, Chunk.idx >= start).order_by(Chunk.idx).limit(RESULTS_PAGE)
                )).all()
            for row in page:
                yield ChunkOutput(
                    plan=ChunkPlan(row.idx, row.first_row, row.row_count), facts_key=row.facts_key,
                    scores_key=row.scores_key, size_bytes=row.result_bytes or 0,
                    user_columns=tuple(json.loads(row.detail_columns)) if row.detail_columns else (),
                )
            if len(page) < RESULTS_PAGE:
                return
            start = page[-1].idx + 1

    async def finish(self, job_id: str, owner: str, export: ExportFile, now: datetime,
                     storage_limit: int | None = None) -> bool:
        async with self._writer.session() as session:
            if storage_limit is not None:
                await lock_owner(session, export.user_id)  # before the job's row, as every storage writer
            result = await session.execute(
                update(Job).where(Job.id == job_id, Job.status == RUNNING, Job.finisher == owner).values(
                    status=DONE, stage="export", done=Job.total, finished_at=now, export_name=export.name,
                    finisher_expires_at=None,
                )
            )
            if result.rowcount != 1:
                await session.rollback()
                return False
            await session.execute(insert_export(export, job_id))
            # The chunks' result files are the export's now (counted in its size, no longer as the
            # job's): their keys stay, naming them, until the export is deleted.
            # A done chunk's input is read no more (only failed rows run again), nor any chunk's score
            # rows (merged into the export's): their keys go, and the finisher deletes their files; a
            # crash in between leaves orphans for the file sweep.
            await session.execute(update(Chunk).where(Chunk.job_id == job_id, Chunk.status == DONE).values(
                input=None, input_key=None, input_bytes=None,
            ))
            await session.execute(update(Chunk).where(Chunk.job_id == job_id).values(scores_key=None))
            if storage_limit is not None:
                # Counted as it will be once done: the export in, the chunks' result files out.
                used = await storage_used_in(session, export.user_id)
                if used > storage_limit:
                    await session.rollback()
                    raise NoRoomForExport(used - export.size_bytes)
            await session.commit()
        return True

    async def fail(self, job_id: str, error: str, now: datetime) -> bool:
        async with self._writer.session() as session:
            result = await session.execute(
                update(Job).where(Job.id == job_id, Job.status.in_((QUEUED, RUNNING)))
                .values(status=FAILED, error=error[:500], finished_at=now, finisher_expires_at=None)
            )
            await session.commit()
        return result.rowcount == 1

    async def job_chunks(self, job_id: str, now: datetime) -> JobChunks | None:
        async with self._sessions() as session:
            total = await session.scalar(select(Job.chunks_total).where(Job.id == job_id))
            if total is None:
                return None
            counts = dict((await session.execute(
                select(Chunk.status, func.count()).where(Chunk.job_id == job_id).group_by(Chunk.status)
            )).all())
            rows_failed, last_finished_at = (await session.execute(
                select(func.coalesce(func.sum(Chunk.rows_failed), 0), func.max(Chunk.finished_at))
                .where(Chunk.job_id == job_id)
            )).one()
            workers = await session.scalar(
                select(func.count(Chunk.lease_owner.distinct()))
                .where(Chunk.job_id == job_id, Chunk.status == RUNNING, Chunk.lease_expires_at >= now)
            )
            return JobChunks(total=total, done=counts.get(DONE, 0), failed=counts.get(FAILED, 0),
                             rows_failed=int(rows_failed or 0), worker_count=int(workers or 0),
                             last_finished_at=_aware(last_finished_at))

    async def failed_inputs(self, job_id: str) -> list[FailedInput]:
        async with self._sessions() as session:
            rows = (await session.execute(
                select(Chunk.input_key, Chunk.input, Chunk.line_offset, Chunk.error, Chunk.row_count)
                .where(Chunk.job_id == job_id, Chunk.status == FAILED).order_by(Chunk.idx)
            )).all()
        return [FailedInput(ChunkSource(row.input_key, row.input), row.line_offset, row.error or "", row.row_count)
                for row in rows]

    async def done_input_keys(self, job_id: str) -> list[str]:
        async with self._sessions() as session:
            keys = await session.scalars(
                select(Chunk.input_key).where(Chunk.job_id == job_id, Chunk.status == DONE,
                                              Chunk.input_key.is_not(None))
            )
            return list(keys)
