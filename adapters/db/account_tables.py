"""Tables of accounts, sessions, password resets, searches and mail."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base, new_id


class UserRow(Base):
    __tablename__ = "user_account"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    display_name: Mapped[str | None] = mapped_column(String(100))
    photo_url: Mapped[str | None] = mapped_column(String(2048))
    role: Mapped[str] = mapped_column(String(10), default="user")
    password_hash: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[datetime]


class ExternalIdentityRow(Base):
    __tablename__ = "external_identity"
    __table_args__ = (UniqueConstraint("issuer", "subject"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    issuer: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))


class RefreshTokenRow(Base):
    __tablename__ = "refresh_token"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    family_id: Mapped[str] = mapped_column(String(36), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    persistent: Mapped[bool] = mapped_column(Boolean)
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class PasswordResetRow(Base):
    __tablename__ = "password_reset"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class SearchRow(Base):
    """One single lookup or one batch; `result_json` holds the stored answer."""

    __tablename__ = "search"
    # The second index finds a recent answer for the same building (search caching).
    __table_args__ = (Index(None, "user_id", "created_at"), Index(None, "building_key", "created_at"))

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))  # 'single' or 'batch'
    address: Mapped[str] = mapped_column(String(500))
    building_key: Mapped[str | None] = mapped_column(String(200))
    occupant_count: Mapped[int | None] = mapped_column(Integer)  # None: no occupant source covers it
    result_json: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]


class MonthlyUsageRow(Base):
    """Searches charged per user and month; the quota is reserved with one conditional UPDATE."""

    __tablename__ = "monthly_usage"

    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True)
    month: Mapped[str] = mapped_column(String(7), primary_key=True)
    used: Mapped[int] = mapped_column(Integer, default=0)


class OutboxMailRow(Base):
    __tablename__ = "outbox_mail"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    to_address: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(300))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
