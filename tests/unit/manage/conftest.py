from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from saphira.manage.main import main

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "saphira.conf"
    path.write_text(
        f"[DEFAULT]\nstate_path = {tmp_path / 'state'}\n"
        "transport_url = rabbit://openstack:RABBIT_PASS@controller:5672/nova_cell1\n"
    )
    return path


@pytest.fixture
def run(config_file: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """saphira-manage --config-file <file> ARGS: (exit code, stdout, stderr)."""

    def runner(*argv: str, config: Path | None = None) -> tuple[int, str, str]:
        code = main(["--config-file", str(config or config_file), *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return runner
