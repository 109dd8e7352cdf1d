"""Imports every table module so that `Base.metadata` is complete (Alembic, schema checks)."""

from adapters.db import (  # noqa: F401
    account_tables,
    api_tables,
    batch_tables,
    mfa_tables,
    settings_tables,
    throttle_tables,
    webhook_tables,
)
from adapters.db.base import Base

try:  # reference data tables arrive with the lookup feature
    from adapters.db import reference_tables  # noqa: F401
except ImportError:  # pragma: no cover
    pass

metadata = Base.metadata
