"""the export viewer's index of an export's rows, stored as a file beside the export: its key

Revision ID: 0017_rows_index
Revises: 0016_result_files

Exports from before have none (NULL): the viewer builds their index from the detailed records on
first open, as it did before.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0017_rows_index'
down_revision = '0016_result_files'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('export_file') as batch:
        batch.add_column(sa.Column('rows_index_key', sa.String(length=512), nullable=True))


def downgrade() -> None:
    # The index files stay in the store, unreferenced; the viewer would rebuild them anyway.
    with op.batch_alter_table('export_file') as batch:
        batch.drop_column('rows_index_key')
