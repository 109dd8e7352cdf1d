"""points that say which county they lie in: each city's point and ZIPs (SimpleMaps cities), and
the GeoNames point of each ZIP with GeoNames' county

Revision ID: 0021_reference_points
Revises: 0020_unknown_occupant_count

A lookup gives a point only in the county it chose (#26, item 5): without county polygons, a
point is trusted to lie in a county only when its own source says so, so each point is kept with
its source's county. A city's ZIPs let an address typed without a ZIP be resolved (item 7).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0021_reference_points'
down_revision = '0020_unknown_occupant_count'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('place_county') as batch:
        batch.add_column(sa.Column('lat', sa.Float(), nullable=True))
        batch.add_column(sa.Column('lng', sa.Float(), nullable=True))
        batch.add_column(sa.Column('zips', sa.Text(), nullable=True))
    op.create_table(
        'zip_point',
        sa.Column('zip', sa.String(length=5), nullable=False),
        sa.Column('source', sa.String(length=20), nullable=False),
        sa.Column('county_fips', sa.String(length=5), nullable=True),
        sa.Column('lat', sa.Float(), nullable=False),
        sa.Column('lng', sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint('zip', 'source', name=op.f('pk_zip_point')),
    )


def downgrade() -> None:
    op.drop_table('zip_point')
    with op.batch_alter_table('place_county') as batch:
        batch.drop_column('zips')
        batch.drop_column('lng')
        batch.drop_column('lat')
