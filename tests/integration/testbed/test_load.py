"""The load's memory judgement (``load.grew``), on made-up samples: no bed needed."""

from __future__ import annotations

import pytest

from tests.integration.testbed.load import grew

MIB = 1024


def test_a_steady_climb_grew() -> None:
    climb = [200 * MIB + n * 8 * MIB for n in range(12)]  # 8 MiB more every sample
    assert grew(climb) == (212 * MIB, 264 * MIB)  # the first four's median, the last four's least


def test_a_burst_given_back_did_not_grow() -> None:
    """The CI run's conductor: 128 MiB, a 159 MiB burst late in the run, 130 MiB at the end."""
    burst = [128 * MIB, 127 * MIB, 128 * MIB, 135 * MIB, 159 * MIB, 130 * MIB]
    assert grew(burst) is None


def test_flat_within_the_slack_did_not_grow() -> None:
    assert grew([400 * MIB, 405 * MIB, 410 * MIB, 412 * MIB, 415 * MIB, 414 * MIB]) is None


def test_too_few_samples_are_refused_not_passed() -> None:
    with pytest.raises(ValueError, match="2 RSS samples"):
        grew([100 * MIB, 900 * MIB])
