"""The per-service mains refuse a bad configuration before starting anything."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from saphira.cmd import api, compute, conductor, novncproxy, scheduler


@pytest.mark.parametrize(
    "main",
    [api.main, compute.main, conductor.main, scheduler.main, novncproxy.main],
    ids=["api", "compute", "conductor", "scheduler", "novncproxy"],
)
def test_bad_value_is_exit_2_naming_file_section_and_key(
    main: Callable[[Sequence[str] | None], int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "nova.conf"
    bad.write_text("[DEFAULT]\nreport_interval = soon\n", encoding="utf-8")

    code = main(["--config-file", str(bad)])

    assert code == 2
    err = capsys.readouterr().err
    assert "configuration error" in err
    assert "report_interval" in err
