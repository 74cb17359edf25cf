"""The per-service mains refuse a bad configuration before starting anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.cmd import api, compute, conductor, scheduler


@pytest.mark.parametrize("module", [api, compute, conductor, scheduler])
def test_bad_value_is_exit_2_naming_file_section_and_key(
    module: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "nova.conf"
    bad.write_text("[DEFAULT]\nreport_interval = soon\n", encoding="utf-8")

    code = module.main(["--config-file", str(bad)])  # type: ignore[attr-defined]

    assert code == 2
    err = capsys.readouterr().err
    assert "configuration error" in err
    assert "report_interval" in err
