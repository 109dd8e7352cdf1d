"""a search's occupant count may be unknown

Revision ID: 0020_unknown_occupant_count
Revises: 0019_split_turn

Where no occupant source covers an address its occupants are unknown, not none: the count is
null there, and 0 only where a covering source found no business.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0020_unknown_occupant_count'
down_revision = '0019_split_turn'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('search') as batch:
        batch.alter_column('occupant_count', existing_type=sa.Integer(), nullable=True)


def downgrade() -> None:
    op.execute("UPDATE search SET occupant_count = 0 WHERE occupant_count IS NULL")
    with op.batch_alter_table('search') as batch:
        batch.alter_column('occupant_count', existing_type=sa.Integer(), nullable=False)
