"""The Overview's bars: the share of a limit used, its colour class and its words."""

from __future__ import annotations

import pytest

from saphira.dashboard.cloud_quotas import UNLIMITED, Usage


@pytest.mark.parametrize(
    ("used", "limit", "percent", "level", "text"),
    [
        (0, 10, 0, "ok", "0 of 10 used"),
        (3, 10, 30, "ok", "3 of 10 used"),
        (8, 10, 80, "high", "8 of 10 used"),
        (10, 10, 100, "full", "10 of 10 used"),
        (12, 10, 100, "full", "12 of 10 used"),  # over a lowered limit: the bar stays full
        (0, 0, 0, "full", "0 of 0 used"),
        (4, UNLIMITED, 0, "ok", "4 used, no limit"),
    ],
)
def test_a_usage_in_numbers_and_words(
    used: int, limit: int, percent: int, level: str, text: str
) -> None:
    usage = Usage("Instances", used, limit)
    assert (usage.percent, usage.level, usage.text) == (percent, level, text)


def test_a_unit_is_said_with_both_numbers() -> None:
    assert Usage("RAM", 512, 2048, "MiB").text == "512 MiB of 2048 MiB used"
