"""chunk results and exports as files in the file store: their keys and sizes in the rows

Revision ID: 0016_result_files
Revises: 0015_upload_files

The text columns stay, nullable, for rows written before: an export or a chunk result stored as
text is still read from them (application/result_files.py); nothing new is written there.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0016_result_files'
down_revision = '0015_upload_files'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('batch_chunk') as batch:
        batch.add_column(sa.Column('lines_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('detail_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('lines_bytes', sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column('detail_bytes', sa.BigInteger(), nullable=True))
    with op.batch_alter_table('export_file') as batch:
        batch.add_column(sa.Column('csv_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('detail_key', sa.String(length=512), nullable=True))
        batch.add_column(sa.Column('summary_key', sa.String(length=512), nullable=True))
        batch.alter_column('content', existing_type=sa.Text(), nullable=True)


def downgrade() -> None:
    # Exports stored as files have no text to give back: their rows go (their files stay in the store).
    op.execute("DELETE FROM export_file WHERE content IS NULL")
    with op.batch_alter_table('export_file') as batch:
        batch.alter_column('content', existing_type=sa.Text(), nullable=False)
        batch.drop_column('summary_key')
        batch.drop_column('detail_key')
        batch.drop_column('csv_key')
    with op.batch_alter_table('batch_chunk') as batch:
        batch.drop_column('detail_bytes')
        batch.drop_column('lines_bytes')
        batch.drop_column('detail_key')
        batch.drop_column('lines_key')
