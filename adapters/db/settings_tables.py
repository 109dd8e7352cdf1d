"""The administrator's system settings: one row."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Integer, String, false
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base

SETTINGS_ROW_ID = 1


class SystemSettingsRow(Base):
    __tablename__ = "system_settings"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    monthly_search_limit: Mapped[int] = mapped_column(Integer)
    rate_limiting: Mapped[bool] = mapped_column(Boolean)
    search_caching: Mapped[bool] = mapped_column(Boolean)
    monthly_batch_row_limit: Mapped[int] = mapped_column(Integer, server_default="10000")
    require_admin_mfa: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    updated_at: Mapped[datetime]
    updated_by: Mapped[str | None] = mapped_column(String(36))
