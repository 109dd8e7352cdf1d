"""uploads and chunk inputs in the file store: a key column each, the text columns kept for older rows

Revision ID: 0015_upload_files
Revises: 0014_batch_chunks
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0015_upload_files'
down_revision = '0014_batch_chunks'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('uploaded_file') as batch:
        batch.add_column(sa.Column('file_key', sa.String(length=512), nullable=True))
        batch.alter_column('content', existing_type=sa.Text(), nullable=True)
    with op.batch_alter_table('batch_chunk') as batch:
        batch.add_column(sa.Column('input_key', sa.String(length=512), nullable=True))
        batch.alter_column('input', existing_type=sa.Text(), nullable=True)


def downgrade() -> None:
    # Rows whose text is only in the file store cannot go back: a downgrade needs them gone first.
    op.execute("DELETE FROM batch_chunk WHERE input IS NULL")
    op.execute("DELETE FROM uploaded_file WHERE content IS NULL")
    with op.batch_alter_table('batch_chunk') as batch:
        batch.alter_column('input', existing_type=sa.Text(), nullable=False)
        batch.drop_column('input_key')
    with op.batch_alter_table('uploaded_file') as batch:
        batch.alter_column('content', existing_type=sa.Text(), nullable=False)
        batch.drop_column('file_key')
