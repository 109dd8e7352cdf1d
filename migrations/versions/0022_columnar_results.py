"""batch results as a columnar dataset (issue #27): a chunk's result is two Parquet files, an
export their manifest; a chunk records the rows answered so far

Revision ID: 0022_columnar_results
Revises: 0021_reference_points

A chunk's result was its SPEC lines and detailed JSON Lines (files, or before 0016 text in the
row); now it is a facts and a scores Parquet file (`facts_key`, `scores_key`, `result_bytes`).
Chunks that ended with the old result in a job still running are queued again, as if never run
(the job's progress gives their rows back; their old `enqueued_at` gets them a task from the
sweeper's stale check), so no export mixes the two: their old files are no one's any more, and
the orphan sweep deletes them. A done job's chunks had their result keys
dropped by its finish already; a failed job's results were deleted as it failed.

Exports keep their old keys until `perilscope exports convert` makes each a dataset; a new one
has `manifest_key` alone.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0022_columnar_results'
down_revision = '0021_reference_points'
branch_labels = None
depends_on = None

_UNFINISHED_JOB = "job_id IN (SELECT id FROM batch_job WHERE status IN ('queued', 'running'))"
_OLD_RESULT = "(lines_key IS NOT NULL OR lines IS NOT NULL)"


def upgrade() -> None:
    op.execute(
        "UPDATE batch_job SET done = done - (SELECT coalesce(sum(row_count), 0) FROM batch_chunk "
        f"WHERE batch_chunk.job_id = batch_job.id AND status IN ('done', 'failed') AND {_OLD_RESULT}), "
        "finisher = NULL, finisher_expires_at = NULL, stage = 'search' "
        "WHERE status IN ('queued', 'running') AND EXISTS (SELECT 1 FROM batch_chunk "
        f"WHERE batch_chunk.job_id = batch_job.id AND status IN ('done', 'failed') AND {_OLD_RESULT})"
    )
    op.execute(
        "UPDATE batch_chunk SET status = 'queued', attempts = 0, lease_owner = NULL, lease_expires_at = NULL, "
        "finished_at = NULL, rows_failed = 0, error = NULL "
        f"WHERE status IN ('done', 'failed') AND {_OLD_RESULT} AND {_UNFINISHED_JOB}"
    )
    with op.batch_alter_table('batch_chunk') as batch:
        batch.add_column(sa.Column('rows_answered', sa.Integer(), server_default='0', nullable=False))
        batch.add_column(sa.Column('facts_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('scores_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('result_bytes', sa.BigInteger(), nullable=True))
        batch.drop_column('detail')
        batch.drop_column('lines')
        batch.drop_column('detail_bytes')
        batch.drop_column('lines_bytes')
        batch.drop_column('detail_key')
        batch.drop_column('lines_key')
    with op.batch_alter_table('export_file') as batch:
        batch.add_column(sa.Column('manifest_key', sa.String(length=512), nullable=True))


def downgrade() -> None:
    # Exports that are datasets cannot be read by the code of before: their rows go (their files
    # stay in the store, for the orphan sweep). Running jobs' Parquet results are given back to
    # the queue, as the upgrade did with the old ones.
    op.execute("DELETE FROM export_file WHERE manifest_key IS NOT NULL")
    op.execute(
        "UPDATE batch_chunk SET status = 'queued', attempts = 0, lease_owner = NULL, lease_expires_at = NULL, "
        "finished_at = NULL, rows_failed = 0, error = NULL "
        f"WHERE status IN ('done', 'failed') AND facts_key IS NOT NULL AND {_UNFINISHED_JOB}"
    )
    # Every ended chunk of theirs runs again, and a running one counted its rows so far.
    op.execute("UPDATE batch_job SET done = 0, finisher = NULL, finisher_expires_at = NULL, stage = 'search' "
               "WHERE status IN ('queued', 'running')")
    with op.batch_alter_table('export_file') as batch:
        batch.drop_column('manifest_key')
    with op.batch_alter_table('batch_chunk') as batch:
        batch.add_column(sa.Column('lines_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('detail_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('lines_bytes', sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column('detail_bytes', sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column('lines', sa.Text(), nullable=True))
        batch.add_column(sa.Column('detail', sa.Text(), nullable=True))
        batch.drop_column('result_bytes')
        batch.drop_column('scores_key')
        batch.drop_column('facts_key')
        batch.drop_column('rows_answered')
