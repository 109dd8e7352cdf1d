"""public API batches: a job's callback URL, and the answers kept for Idempotency-Key

Revision ID: 0011_api_batches
Revises: 0010_api_keys
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import adapters.db.base

revision = '0011_api_batches'
down_revision = '0010_api_keys'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('batch_job') as batch:
        batch.add_column(sa.Column('callback_url', sa.String(length=2048), nullable=True))
    op.create_table(
        'api_idempotency',
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('key', sa.String(length=255), nullable=False),
        sa.Column('fingerprint', sa.String(length=64), nullable=False),
        sa.Column('status_code', sa.Integer(), nullable=True),
        sa.Column('body', sa.Text(), nullable=True),
        sa.Column('headers', sa.Text(), nullable=True),
        sa.Column('created_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_api_idempotency_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('user_id', 'key', name=op.f('pk_api_idempotency')),
    )
    op.create_index(op.f('ix_api_idempotency_created_at'), 'api_idempotency', ['created_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_api_idempotency_created_at'), table_name='api_idempotency')
    op.drop_table('api_idempotency')
    with op.batch_alter_table('batch_job') as batch:
        batch.drop_column('callback_url')
