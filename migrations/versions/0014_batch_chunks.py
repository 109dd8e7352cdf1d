"""batch jobs in chunks: leases, results and the finisher's turn

Revision ID: 0014_batch_chunks
Revises: 0013_nri_tracts
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import adapters.db.base

revision = '0014_batch_chunks'
down_revision = '0013_nri_tracts'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('batch_job') as batch:
        batch.add_column(sa.Column('chunks_total', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('last_claimed_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('finisher', sa.String(length=120), nullable=True))
        batch.add_column(sa.Column('finisher_expires_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True))
    op.create_table(
        'batch_chunk',
        sa.Column('job_id', sa.String(length=36), nullable=False),
        sa.Column('idx', sa.Integer(), nullable=False),
        sa.Column('first_row', sa.Integer(), nullable=False),
        sa.Column('row_count', sa.Integer(), nullable=False),
        sa.Column('line_offset', sa.Integer(), nullable=False),
        sa.Column('input', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('lease_owner', sa.String(length=120), nullable=True),
        sa.Column('lease_expires_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column('enqueued_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('finished_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column('rows_failed', sa.Integer(), nullable=False),
        sa.Column('error', sa.String(length=500), nullable=True),
        sa.Column('lines', sa.Text(), nullable=True),
        sa.Column('detail', sa.Text(), nullable=True),
        sa.Column('detail_columns', sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ['job_id'], ['batch_job.id'], name=op.f('fk_batch_chunk_job_id_batch_job'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('job_id', 'idx', name=op.f('pk_batch_chunk')),
    )
    op.create_index(
        op.f('ix_batch_chunk_status'), 'batch_chunk', ['status', 'lease_expires_at'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_batch_chunk_status'), table_name='batch_chunk')
    op.drop_table('batch_chunk')
    with op.batch_alter_table('batch_job') as batch:
        batch.drop_column('finisher_expires_at')
        batch.drop_column('finisher')
        batch.drop_column('last_claimed_at')
        batch.drop_column('chunks_total')
