"""NRI census-tract scores, one row per tract and release; a building record's census tract

Revision ID: 0013_nri_tracts
Revises: 0012_webhooks
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0013_nri_tracts'
down_revision = '0012_webhooks'
branch_labels = None
depends_on = None

# The product's hazard codes (domain/perils.py HAZARDS), written out: a migration must not
# change when the code does.
HAZARD_CODES = (
    'avln', 'cfld', 'cwav', 'drgt', 'erqk', 'hail', 'hwav', 'hrcn', 'istm',
    'lnds', 'ltng', 'rfld', 'swnd', 'trnd', 'tsun', 'vlcn', 'wfir', 'wntw',
)


def upgrade() -> None:
    op.create_table(
        'nri_tract',
        sa.Column('tract_geoid', sa.String(length=11), nullable=False),
        sa.Column('nri_version', sa.String(length=60), nullable=False),
        sa.Column('county_fips', sa.String(length=5), nullable=False),
        sa.Column('state', sa.String(length=2), nullable=True),
        sa.Column('county_name', sa.String(length=100), nullable=True),
        sa.Column('risk_score', sa.Float(), nullable=True),
        sa.Column('risk_rating', sa.String(length=40), nullable=True),
        sa.Column('source', sa.String(length=200), nullable=False),
        *(
            column
            for code in HAZARD_CODES
            for column in (
                sa.Column(f'{code}_score', sa.Float(), nullable=True),
                sa.Column(f'{code}_rating', sa.String(length=40), nullable=True),
            )
        ),
        sa.PrimaryKeyConstraint('tract_geoid', 'nri_version', name=op.f('pk_nri_tract')),
    )
    with op.batch_alter_table('building') as batch:
        batch.add_column(sa.Column('tract_geoid', sa.String(length=11), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('building') as batch:
        batch.drop_column('tract_geoid')
    op.drop_table('nri_tract')
