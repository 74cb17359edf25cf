"""The per-service mains refuse a bad configuration before starting anything."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from saphira.cmd import api, compute, conductor, dashboard, novncproxy, scheduler


@pytest.mark.parametrize(
    "main",
    [api.main, compute.main, conductor.main, scheduler.main, novncproxy.main, dashboard.main],
    ids=["api", "compute", "conductor", "scheduler", "novncproxy", "dashboard"],
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


def _script_modules() -> list[str]:
    """The saphira.cmd modules that pyproject.toml installs as commands."""
    text = (Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    return sorted({line.split('"')[1].split(":")[0] for line in text.splitlines()
                   if '= "saphira.cmd.' in line})  # fmt: skip


@pytest.mark.parametrize("module", _script_modules())
def test_every_command_also_runs_as_python_dash_m(module: str) -> None:
    """The test bed and the services' starters run ``python -m saphira.cmd.<name>``: a
    module without the ``__main__`` guard would exit 0 having done nothing."""
    source = Path(__file__).parents[2] / "src" / (module.replace(".", "/") + ".py")

    assert 'if __name__ == "__main__":' in source.read_text(encoding="utf-8")
