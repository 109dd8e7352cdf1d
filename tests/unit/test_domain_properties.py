"""Properties of the password policy and the monthly quota (hypothesis)."""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from domain.accounts import (
    PASSWORD_MAX_LENGTH,
    PASSWORD_MIN_LENGTH,
    PASSWORD_RULES,
    SPECIAL_CHARACTERS,
    unmet_password_rules,
)
from domain.quota import Quota, UsageColour

RULE = dict(PASSWORD_RULES)
CLASSES = {
    "digit": string.digits,
    "lower": string.ascii_lowercase,
    "upper": string.ascii_uppercase,
    "special": SPECIAL_CHARACTERS,
}


@st.composite
def password_from(draw: st.DrawFn, classes: list[str], min_size: int, max_size: int) -> str:
    """At least one character of each class, padded from those classes, shuffled."""
    required = [draw(st.sampled_from(CLASSES[name])) for name in classes]
    alphabet = "".join(CLASSES[name] for name in classes)
    low = max(min_size - len(required), 0)
    high = max(max_size - len(required), low)
    padding = draw(st.lists(st.sampled_from(alphabet), min_size=low, max_size=high))
    return "".join(draw(st.permutations(required + padding)))


@given(password_from(list(CLASSES), PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH))
def test_a_password_with_every_class_and_length_passes(password: str) -> None:
    assert unmet_password_rules(password) == []


@given(st.data(), st.sampled_from(list(CLASSES)))
def test_leaving_out_one_class_fails_exactly_that_rule(data: st.DataObject, missing: str) -> None:
    others = [name for name in CLASSES if name != missing]
    password = data.draw(password_from(others, PASSWORD_MIN_LENGTH, 40))
    assert unmet_password_rules(password) == [RULE[missing]]


@given(password_from(list(CLASSES), 4, PASSWORD_MIN_LENGTH - 1))
def test_too_short_fails_exactly_the_length_rule(password: str) -> None:
    assert unmet_password_rules(password) == [RULE["length"]]


@given(password_from(list(CLASSES), PASSWORD_MAX_LENGTH + 1, PASSWORD_MAX_LENGTH + 50))
def test_too_long_meets_the_checklist_and_is_refused_by_its_own_message(password: str) -> None:
    # The checklist names only the minimum; over the maximum the account rules answer
    # PASSWORD_TOO_LONG (tests/unit/test_account_use_cases.py).
    assert unmet_password_rules(password) == []


@given(st.text(max_size=300))
def test_any_text_gets_a_subset_of_the_rules_in_order(password: str) -> None:
    unmet = unmet_password_rules(password)
    descriptions = [text for _, text in PASSWORD_RULES]
    assert unmet == [text for text in descriptions if text in unmet]
    assert (RULE["length"] in unmet) == (len(password) < PASSWORD_MIN_LENGTH)


limits = st.none() | st.integers(min_value=0, max_value=1000)


@given(st.integers(min_value=0, max_value=10**6), limits)
def test_remaining_is_never_negative(used: int, limit: int | None) -> None:
    quota = Quota(used=used, limit=limit)
    if limit is None:
        assert quota.remaining is None and not quota.exhausted
    else:
        assert quota.remaining == max(limit - used, 0) >= 0
        assert quota.exhausted == (used >= limit)


@given(st.integers(min_value=0, max_value=10**6), limits)
def test_colour_and_warning_follow_remaining(used: int, limit: int | None) -> None:
    quota = Quota(used=used, limit=limit)
    remaining = quota.remaining
    if remaining is None:
        assert quota.colour is UsageColour.GREEN and not quota.shows_warning
        return
    expected = UsageColour.RED if remaining <= 2 else UsageColour.YELLOW if remaining <= 5 else UsageColour.GREEN
    assert quota.colour is expected
    assert quota.shows_warning == (remaining <= 3)


def test_quota_boundaries_for_the_regular_limit() -> None:
    colours = [Quota(used=used, limit=10).colour for used in range(0, 12)]
    assert colours == [UsageColour.GREEN] * 5 + [UsageColour.YELLOW] * 3 + [UsageColour.RED] * 4
    warnings = [Quota(used=used, limit=10).shows_warning for used in range(0, 11)]
    assert warnings == [False] * 7 + [True] * 4
