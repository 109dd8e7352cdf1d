"""ZIP → county address shares and place → county population shares

Revision ID: 0008_county_shares
Revises: 0007_mfa
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008_county_shares'
down_revision = '0007_mfa'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'zip_county_share',
        sa.Column('zip', sa.String(length=5), nullable=False),
        sa.Column('county_fips', sa.String(length=5), nullable=False),
        sa.Column('total_share', sa.Float(), nullable=False),
        sa.Column('residential_share', sa.Float(), nullable=True),
        sa.Column('business_share', sa.Float(), nullable=True),
        sa.Column('preferred_city', sa.String(length=100), nullable=True),
        sa.Column('preferred_state', sa.String(length=2), nullable=True),
        sa.PrimaryKeyConstraint('zip', 'county_fips', name=op.f('pk_zip_county_share')),
    )
    op.create_table(
        'place_county',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('state', sa.String(length=2), nullable=False),
        sa.Column('place_key', sa.String(length=120), nullable=False),
        sa.Column('place_name', sa.String(length=120), nullable=False),
        sa.Column('county_fips', sa.String(length=5), nullable=False),
        sa.Column('share', sa.Float(), nullable=True),
        sa.Column('source', sa.String(length=40), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_place_county')),
    )
    op.create_index(op.f('ix_place_county_state'), 'place_county', ['state', 'place_key'], unique=False)
    # A dataset of several files records each file's name, size and time.
    with op.batch_alter_table('dataset_load') as batch:
        batch.alter_column('source_file', type_=sa.String(length=2000), existing_nullable=False)
        batch.alter_column('source_fingerprint', type_=sa.String(length=1000), existing_nullable=False)


def downgrade() -> None:
    with op.batch_alter_table('dataset_load') as batch:
        batch.alter_column('source_fingerprint', type_=sa.String(length=100), existing_nullable=False)
        batch.alter_column('source_file', type_=sa.String(length=500), existing_nullable=False)
    op.drop_index(op.f('ix_place_county_state'), table_name='place_county')
    op.drop_table('place_county')
    op.drop_table('zip_county_share')
