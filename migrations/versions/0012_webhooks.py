"""signed webhooks: each user's signing secret (encrypted), deliveries of batch events, attempts

Revision ID: 0012_webhooks
Revises: 0011_api_batches
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import adapters.db.base

revision = '0012_webhooks'
down_revision = '0011_api_batches'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'webhook_secret',
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('sealed', sa.String(length=200), nullable=False),
        sa.Column('created_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_webhook_secret_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('user_id', name=op.f('pk_webhook_secret')),
    )
    op.create_table(
        'webhook_delivery',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('job_id', sa.String(length=36), nullable=False),
        sa.Column('event', sa.String(length=40), nullable=False),
        sa.Column('url', sa.String(length=2048), nullable=False),
        sa.Column('body', sa.Text(), nullable=False),
        sa.Column('status', sa.String(length=20), nullable=False),
        sa.Column('created_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('next_attempt_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column('attempt_count', sa.Integer(), nullable=False),
        sa.Column('lease_token', sa.String(length=32), nullable=True),
        sa.Column('lease_until', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_webhook_delivery_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_delivery')),
    )
    op.create_index(op.f('ix_webhook_delivery_user_id'), 'webhook_delivery', ['user_id', 'created_at'], unique=False)
    op.create_index(op.f('ix_webhook_delivery_status'), 'webhook_delivery', ['status', 'next_attempt_at'], unique=False)
    op.create_table(
        'webhook_attempt',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('delivery_id', sa.String(length=36), nullable=False),
        sa.Column('attempted_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('duration_ms', sa.Integer(), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=True),
        sa.Column('error', sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(
            ['delivery_id'], ['webhook_delivery.id'], name=op.f('fk_webhook_attempt_delivery_id_webhook_delivery'),
            ondelete='CASCADE',
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_attempt')),
    )
    op.create_index(
        op.f('ix_webhook_attempt_delivery_id'), 'webhook_attempt', ['delivery_id', 'attempted_at'], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f('ix_webhook_attempt_delivery_id'), table_name='webhook_attempt')
    op.drop_table('webhook_attempt')
    op.drop_index(op.f('ix_webhook_delivery_status'), table_name='webhook_delivery')
    op.drop_index(op.f('ix_webhook_delivery_user_id'), table_name='webhook_delivery')
    op.drop_table('webhook_delivery')
    op.drop_table('webhook_secret')
