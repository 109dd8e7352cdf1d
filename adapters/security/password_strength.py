"""Refuses guessable passwords with zxcvbn: its offline dictionaries of common and breached
passwords, names and words, with l33t, keyboard, date and repeat patterns, and the user's own
email as a word. The composition rules (domain/accounts.py) let 'Password1!' through; this does not."""

from __future__ import annotations

import asyncio

from domain.accounts import PASSWORD_MAX_LENGTH

# zxcvbn's scale: 3 is 10^8 guesses or more, "safely unguessable" for an online attacker and
# costly offline against argon2id.
MIN_SCORE = 3
TOO_GUESSABLE = (
    "This password is too common or easy to guess. Please choose a less predictable one, "
    "for example a few unrelated words with a number and a symbol."
)


class ZxcvbnPasswordStrength:
    async def weakness(self, password: str, personal: list[str]) -> str | None:
        # A long password takes zxcvbn a few hundred milliseconds: off the event loop.
        return await asyncio.to_thread(self._weakness, password, personal)

    def _weakness(self, password: str, personal: list[str]) -> str | None:
        # Imported at the first check, not with the server: its dictionaries are 13 MB, which a
        # server that only runs lookups and batches never needs (issue #13: under 300 MB).
        from zxcvbn import zxcvbn

        words = [part for value in personal for part in value.replace("@", " ").replace(".", " ").split() if part]
        result = zxcvbn(password, user_inputs=words, max_length=PASSWORD_MAX_LENGTH)
        if result["score"] >= MIN_SCORE:
            return None
        warning = (result.get("feedback") or {}).get("warning")
        return f"{TOO_GUESSABLE} ({warning.rstrip('.')}.)" if warning else TOO_GUESSABLE
