"""the one process splitting a job, and until when it holds that turn

Revision ID: 0019_split_turn
Revises: 0018_chunk_input_bytes

A job's chunks are stored a batch at a time as its file is read, and run while the rest is read;
a splitter that dies is followed by another, which goes on after the chunks stored. Jobs split
before were split in one go: they have no turn to hold.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import adapters.db.base

revision = '0019_split_turn'
down_revision = '0018_chunk_input_bytes'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('batch_job') as batch:
        batch.add_column(sa.Column('splitter', sa.String(length=120), nullable=True))
        batch.add_column(sa.Column('splitter_expires_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('batch_job') as batch:
        batch.drop_column('splitter_expires_at')
        batch.drop_column('splitter')
