"""a chunk input file's size, counted against its owner's storage

Revision ID: 0018_chunk_input_bytes
Revises: 0017_rows_index

Chunks split before keep NULL: their files' sizes are unknown here (the file store is not the
migration's to read), so they are not counted; they go when their job ends, or, for a failed
chunk's rows, stay uncounted.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0018_chunk_input_bytes'
down_revision = '0017_rows_index'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('batch_chunk') as batch:
        batch.add_column(sa.Column('input_bytes', sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('batch_chunk') as batch:
        batch.drop_column('input_bytes')
