"""throttle counters shared by every server process

Revision ID: 0005_throttle
Revises: 0004_admin_settings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0005_throttle'
down_revision = '0004_admin_settings'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'throttle_counter',
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('last_attempt_at', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('key', name=op.f('pk_throttle_counter')),
    )


def downgrade() -> None:
    op.drop_table('throttle_counter')
