"""public API: keys (hashes only), plans, requests per user and day, and the answers given

Revision ID: 0010_api_keys
Revises: 0009_export_detail
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import adapters.db.base

revision = '0010_api_keys'
down_revision = '0009_export_detail'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'api_key',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('prefix', sa.String(length=20), nullable=False),
        sa.Column('key_hash', sa.String(length=64), nullable=False),
        sa.Column('scopes', sa.String(length=100), nullable=False),
        sa.Column('created_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('last_used_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column('revoked_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_api_key_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_api_key')),
        sa.UniqueConstraint('key_hash', name=op.f('uq_api_key_key_hash')),
    )
    op.create_index(op.f('ix_api_key_user_id'), 'api_key', ['user_id', 'created_at'], unique=False)
    op.create_table(
        'api_plan',
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('plan', sa.String(length=20), nullable=False),
        sa.Column('daily_limit', sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_api_plan_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('user_id', name=op.f('pk_api_plan')),
    )
    op.create_table(
        'api_daily_usage',
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('day', sa.String(length=10), nullable=False),
        sa.Column('used', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_api_daily_usage_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('user_id', 'day', name=op.f('pk_api_daily_usage')),
    )
    op.create_table(
        'api_answer',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('address_hash', sa.String(length=64), nullable=False),
        sa.Column('address', sa.String(length=1000), nullable=False),
        sa.Column('result_json', sa.Text(), nullable=False),
        sa.Column('created_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_api_answer_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_api_answer')),
    )
    op.create_index(op.f('ix_api_answer_user_id'), 'api_answer', ['user_id', 'address_hash', 'created_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_api_answer_user_id'), table_name='api_answer')
    op.drop_table('api_answer')
    op.drop_table('api_daily_usage')
    op.drop_table('api_plan')
    op.drop_index(op.f('ix_api_key_user_id'), table_name='api_key')
    op.drop_table('api_key')
