"""The long tier's budget: how it is read and how it is shared."""

from __future__ import annotations

import pytest

from tests.budget import DEFAULT_SECONDS, ENV, Budget, tier_seconds


def test_the_tier_has_a_default_and_takes_the_environments_seconds() -> None:
    assert tier_seconds({}) == DEFAULT_SECONDS
    assert tier_seconds({ENV: "300"}) == 300.0
    assert tier_seconds({ENV: "0.5"}) == 0.5


@pytest.mark.parametrize("raw", ["0", "-5", "nan", "ten", "inf-ish"])
def test_a_budget_that_is_not_a_positive_number_is_refused(raw: str) -> None:
    with pytest.raises(pytest.UsageError, match=ENV):
        tier_seconds({ENV: raw})


def test_a_share_counts_down_from_when_it_was_given() -> None:
    given = Budget(60.0)
    assert 0.0 < given.remaining() <= 60.0
    assert not given.expired()
    spent = Budget(60.0, started=given.started - 61.0)
    assert spent.remaining() == 0.0
    assert spent.expired()
