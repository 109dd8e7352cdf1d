"""RFC 6238 one-time codes with pyotp, and the enrolment QR code drawn as SVG with segno."""

from __future__ import annotations

import hmac
import io
from datetime import datetime

import pyotp
import segno

from domain.mfa import TOTP_DIGITS, TOTP_STEP_SECONDS, candidate_steps


class PyotpCodes:
    def new_secret(self) -> str:
        return pyotp.random_base32()  # 32 characters: 160 bits, RFC 4226's recommended length

    def provisioning_uri(self, secret: str, account_name: str, issuer: str) -> str:
        return self._totp(secret).provisioning_uri(name=account_name, issuer_name=issuer)

    def matching_step(self, secret: str, code: str, at: datetime) -> int | None:
        totp = self._totp(secret)
        matched = None
        # Every candidate is compared, in constant time, so timing says nothing about which matched.
        for step in candidate_steps(totp.timecode(at)):
            if step < 0:  # before 1970: only in tests near the epoch
                continue
            if hmac.compare_digest(totp.generate_otp(step), code):
                matched = step
        return matched

    def _totp(self, secret: str) -> pyotp.TOTP:
        return pyotp.TOTP(secret, digits=TOTP_DIGITS, interval=TOTP_STEP_SECONDS)


class SegnoQrCodes:
    def svg(self, text: str) -> str:
        """A standalone SVG document (with its namespace), so the browser can show it as an image."""
        out = io.BytesIO()
        segno.make(text, error="m").save(
            out, kind="svg", scale=5, border=4, light="#fff", xmldecl=False, title="QR code"
        )
        return out.getvalue().decode()
