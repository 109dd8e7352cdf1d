"""Signed webhooks: each user's signing secret (encrypted), the deliveries of batch events and
every attempt to deliver them (adapters/db/webhook_repositories.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from adapters.db.base import Base


class WebhookSecretRow(Base):
    __tablename__ = "webhook_secret"

    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), primary_key=True)
    sealed: Mapped[str] = mapped_column(String(200))  # AES-GCM, the owner's id as associated data
    created_at: Mapped[datetime]


class WebhookDeliveryRow(Base):
    __tablename__ = "webhook_delivery"
    __table_args__ = (
        Index(None, "user_id", "created_at"),
        Index(None, "status", "next_attempt_at"),  # the pump's question: what is due
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"))
    job_id: Mapped[str] = mapped_column(String(36))
    event: Mapped[str] = mapped_column(String(40))
    url: Mapped[str] = mapped_column(String(2048))
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20))  # pending, succeeded, failed
    created_at: Mapped[datetime]
    next_attempt_at: Mapped[datetime | None]
    attempt_count: Mapped[int] = mapped_column(Integer, default=0)
    # Who is making an attempt now, and until when (a lease; see DeliveryStore.claim).
    lease_token: Mapped[str | None] = mapped_column(String(32))
    lease_until: Mapped[datetime | None]


class WebhookAttemptRow(Base):
    __tablename__ = "webhook_attempt"
    __table_args__ = (Index(None, "delivery_id", "attempted_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    delivery_id: Mapped[str] = mapped_column(ForeignKey("webhook_delivery.id", ondelete="CASCADE"))
    attempted_at: Mapped[datetime]
    duration_ms: Mapped[int] = mapped_column(Integer)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(500))
