"""Throttle counters shared by every server process (adapters/db/throttle.py)."""

from __future__ import annotations

from sqlalchemy import Float, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base


class ThrottleCounterRow(Base):
    __tablename__ = "throttle_counter"

    # SHA-256 of the key: e-mail addresses and client addresses are not kept in clear.
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    attempts: Mapped[int] = mapped_column(Integer)
    # Seconds since the epoch: plain numbers compare and subtract alike on SQLite and PostgreSQL.
    last_attempt_at: Mapped[float] = mapped_column(Float)
