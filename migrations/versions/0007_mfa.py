"""two-factor sign-in: enrolments, recovery codes, and the 'require for admins' setting

Revision ID: 0007_mfa
Revises: 0006_batch_bounds
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import adapters.db.base

revision = '0007_mfa'
down_revision = '0006_batch_bounds'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'user_mfa',
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('secret_sealed', sa.String(length=255), nullable=False),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('last_used_step', sa.BigInteger(), nullable=True),
        sa.Column('pending_challenge', sa.String(length=64), nullable=True),
        sa.Column('created_at', adapters.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column('enabled_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_user_mfa_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('user_id', name=op.f('pk_user_mfa')),
    )
    op.create_table(
        'mfa_recovery_code',
        sa.Column('id', sa.String(length=36), nullable=False),
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('code_hash', sa.String(length=255), nullable=False),
        sa.Column('used_at', adapters.db.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ['user_id'], ['user_account.id'], name=op.f('fk_mfa_recovery_code_user_id_user_account'), ondelete='CASCADE'
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_mfa_recovery_code')),
    )
    op.create_index(op.f('ix_mfa_recovery_code_user_id'), 'mfa_recovery_code', ['user_id'], unique=False)
    op.add_column(
        'system_settings', sa.Column('require_admin_mfa', sa.Boolean(), server_default=sa.false(), nullable=False)
    )


def downgrade() -> None:
    with op.batch_alter_table('system_settings') as batch:
        batch.drop_column('require_admin_mfa')
    op.drop_index(op.f('ix_mfa_recovery_code_user_id'), table_name='mfa_recovery_code')
    op.drop_table('mfa_recovery_code')
    op.drop_table('user_mfa')
