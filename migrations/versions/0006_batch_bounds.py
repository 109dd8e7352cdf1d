"""bounded batches: a monthly batch row allowance, storage sizes, upload retention, export source

Revision ID: 0006_batch_bounds
Revises: 0005_throttle
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0006_batch_bounds'
down_revision = '0005_throttle'
branch_labels = None
depends_on = None


def _byte_length(column: str) -> str:
    return f"octet_length({column})" if op.get_bind().dialect.name == "postgresql" else f"length(CAST({column} AS BLOB))"


def upgrade() -> None:
    op.create_table(
        'batch_row_usage',
        sa.Column('user_id', sa.String(length=36), nullable=False),
        sa.Column('month', sa.String(length=7), nullable=False),
        sa.Column('rows_used', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['user_id'], ['user_account.id'], name=op.f('fk_batch_row_usage_user_id_user_account'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('user_id', 'month', name=op.f('pk_batch_row_usage')),
    )
    with op.batch_alter_table('system_settings', schema=None) as batch_op:
        batch_op.add_column(sa.Column('monthly_batch_row_limit', sa.Integer(), server_default='10000', nullable=False))
    with op.batch_alter_table('uploaded_file', schema=None) as batch_op:
        batch_op.add_column(sa.Column('size_bytes', sa.BigInteger(), server_default='0', nullable=False))
    with op.batch_alter_table('export_file', schema=None) as batch_op:
        batch_op.add_column(sa.Column('size_bytes', sa.BigInteger(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('source', sa.String(length=10), server_default='computed', nullable=False))
    # An upload can now be deleted once its job is done; the job's record stays.
    with op.batch_alter_table('batch_job', schema=None) as batch_op:
        batch_op.drop_constraint('fk_batch_job_file_id_uploaded_file', type_='foreignkey')
        batch_op.alter_column('file_id', existing_type=sa.String(length=36), nullable=True)
        batch_op.create_foreign_key(
            op.f('fk_batch_job_file_id_uploaded_file'), 'uploaded_file', ['file_id'], ['id'], ondelete='SET NULL'
        )
    op.execute(f"UPDATE uploaded_file SET size_bytes = {_byte_length('content')}")
    op.execute(f"UPDATE export_file SET size_bytes = {_byte_length('content')}")
    # Before this revision only POST /api/export stored exports without a job: rows a caller sent.
    op.execute("UPDATE export_file SET source = 'client' WHERE job_id IS NULL")


def downgrade() -> None:
    op.execute("DELETE FROM batch_job WHERE file_id IS NULL")
    with op.batch_alter_table('batch_job', schema=None) as batch_op:
        batch_op.drop_constraint('fk_batch_job_file_id_uploaded_file', type_='foreignkey')
        batch_op.alter_column('file_id', existing_type=sa.String(length=36), nullable=False)
        batch_op.create_foreign_key(
            op.f('fk_batch_job_file_id_uploaded_file'), 'uploaded_file', ['file_id'], ['id'], ondelete='CASCADE'
        )
    with op.batch_alter_table('export_file', schema=None) as batch_op:
        batch_op.drop_column('source')
        batch_op.drop_column('size_bytes')
    with op.batch_alter_table('uploaded_file', schema=None) as batch_op:
        batch_op.drop_column('size_bytes')
    with op.batch_alter_table('system_settings', schema=None) as batch_op:
        batch_op.drop_column('monthly_batch_row_limit')
    op.drop_table('batch_row_usage')
