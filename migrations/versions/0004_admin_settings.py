"""system settings; an index for search caching

Revision ID: 0004_admin_settings
Revises: 0003_batch
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import adapters.db.base

revision = '0004_admin_settings'
down_revision = '0003_batch'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'system_settings',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('monthly_search_limit', sa.Integer(), nullable=False),
        sa.Column('rate_limiting', sa.Boolean(), nullable=False),
        sa.Column('search_caching', sa.Boolean(), nullable=False),
        sa.Column('updated_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('updated_by', sa.String(length=36), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_system_settings')),
    )
    op.create_index(op.f('ix_search_building_key'), 'search', ['building_key', 'created_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_search_building_key'), table_name='search')
    op.drop_table('system_settings')
