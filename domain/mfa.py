"""Two-factor sign-in rules (OWASP ASVS 2.8: time-based one-time codes, 2.5/2.8 recovery codes).

TOTP follows RFC 6238 with its common parameters (SHA-1, 30-second steps, 6 digits) because every
authenticator app supports exactly those. A code is accepted one step either side of the server's
time (clock drift), and a step once used can never be used again (RFC 6238 §5.2).
"""

from __future__ import annotations

import secrets

TOTP_STEP_SECONDS = 30
TOTP_DIGITS = 6
TOTP_DRIFT_STEPS = 1  # one step either side of "now"
ISSUER = "PerilScope"

RECOVERY_CODE_COUNT = 10
RECOVERY_CODE_LENGTH = 10
# Crockford's base 32 (no I, L, O, U): 10 symbols carry 50 bits, and a typed O, I or L is read
# as the digit it looks like.
RECOVERY_CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_LOOK_ALIKES = str.maketrans({"O": "0", "I": "1", "L": "1"})

MAX_SECOND_STEP_FAILURES = 5  # per sign-in attempt and per account
SECOND_STEP_WINDOW_SECONDS = 15 * 60
CHALLENGE_LIFETIME_SECONDS = 5 * 60


def candidate_steps(current_step: int) -> range:
    """The time steps whose code is accepted now."""
    return range(current_step - TOTP_DRIFT_STEPS, current_step + TOTP_DRIFT_STEPS + 1)


def is_fresh_step(step: int, last_used_step: int | None) -> bool:
    """A code counts only for a step later than the last one used, so an intercepted or
    shoulder-surfed code cannot be replayed, not even within its own 90-second window."""
    return last_used_step is None or step > last_used_step


def clean_totp_code(text: str) -> str | None:
    """The six digits as typed ("123 456" too), or None when it cannot be a code."""
    digits = "".join(text.split())
    return digits if len(digits) == TOTP_DIGITS and digits.isascii() and digits.isdigit() else None


def new_recovery_codes(count: int = RECOVERY_CODE_COUNT) -> list[str]:
    """Random codes, shown once, as XXXXX-XXXXX for readability."""
    return [format_recovery_code(_random_code()) for _ in range(count)]


def _random_code() -> str:
    return "".join(secrets.choice(RECOVERY_CODE_ALPHABET) for _ in range(RECOVERY_CODE_LENGTH))


def format_recovery_code(code: str) -> str:
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}"


def clean_recovery_code(text: str) -> str | None:
    """The code without spaces or dashes, upper-cased; None when it cannot be one of ours."""
    code = "".join(ch for ch in text.upper() if ch not in " -\t").translate(_LOOK_ALIKES)
    if len(code) != RECOVERY_CODE_LENGTH or any(ch not in RECOVERY_CODE_ALPHABET for ch in code):
        return None
    return code
