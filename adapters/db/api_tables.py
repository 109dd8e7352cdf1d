"""The public API: keys (hashes only), each user's plan, and requests counted per user and day."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base


class ApiKeyRow(Base):
    __tablename__ = "api_key"
    __table_args__ = (Index(None, "user_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    prefix: Mapped[str] = mapped_column(String(20))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)  # SHA-256; the key itself is never stored
    scopes: Mapped[str] = mapped_column(String(100))  # space-separated, e.g. "batch read"
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class ApiPlanRow(Base):
    """A user's plan when it is not Standard (no row: Standard)."""

    __tablename__ = "api_plan"

    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True)
    plan: Mapped[str] = mapped_column(String(20))
    daily_limit: Mapped[int | None] = mapped_column(Integer)  # Enterprise only


class ApiDailyUsageRow(Base):
    """Requests charged per user and UTC day, with one conditional upsert (adapters/db/api_repositories.py)."""

    __tablename__ = "api_daily_usage"

    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    used: Mapped[int] = mapped_column(Integer, default=0)


class ApiAnswerRow(Base):
    """Each answer the public API gave, for the caller's history of an address."""

    __tablename__ = "api_answer"
    __table_args__ = (Index(None, "user_id", "address_hash", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    address_hash: Mapped[str] = mapped_column(String(64))  # SHA-256 of the address line: a short index key
    address: Mapped[str] = mapped_column(String(1000))
    result_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]


class ApiIdempotencyRow(Base):
    """An `Idempotency-Key` of a public API POST and, once answered, its answer. Inserted before
    the work (user_id, key is the primary key), so of two concurrent duplicates only one runs."""

    __tablename__ = "api_idempotency"

    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))  # SHA-256 of method, path and body
    status_code: Mapped[int | None] = mapped_column(Integer)  # None while the first request runs
    body: Mapped[str | None] = mapped_column(Text)
    headers: Mapped[str | None] = mapped_column(Text)  # JSON object
    created_at: Mapped[datetime] = mapped_column(index=True)
