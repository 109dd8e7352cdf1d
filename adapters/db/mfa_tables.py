"""Two-factor sign-in: one row per enrolled (or enrolling) user, and their recovery codes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base


class UserMfaRow(Base):
    __tablename__ = "user_mfa"

    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True)
    secret_sealed: Mapped[str] = mapped_column(String(255))  # AES-GCM, never the plain secret
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    last_used_step: Mapped[int | None] = mapped_column(BigInteger)  # no code of this step or earlier again
    pending_challenge: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
    enabled_at: Mapped[datetime | None]


class MfaRecoveryCodeRow(Base):
    __tablename__ = "mfa_recovery_code"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(String(255))
    used_at: Mapped[datetime | None]
