"""the detailed export of a batch beside its SPEC CSV

Revision ID: 0009_export_detail
Revises: 0008_county_shares
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0009_export_detail'
down_revision = '0008_county_shares'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('export_file') as batch:
        batch.add_column(sa.Column('detail', sa.Text(), nullable=True))
        batch.add_column(sa.Column('detail_columns', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('export_file') as batch:
        batch.drop_column('detail_columns')
        batch.drop_column('detail')
