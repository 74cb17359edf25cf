"""`saphira purge` beside `saphira up`: its arguments and its refusals, before any root work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from saphira.cmd import up as cmd_up
from saphira.service import uplock


def test_the_state_directory_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cmd_up.main(["purge", "--dry-run"])
    assert stopped.value.code == 2
    assert "--state-dir" in capsys.readouterr().err


def test_refusals_are_one_line_on_stderr_and_nothing_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cmd_up.main(["purge", "--state-dir", str(tmp_path / "missing")]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"saphira purge: {tmp_path / 'missing'} is not a directory\n")

    running = uplock.acquire(str(tmp_path))
    assert isinstance(running, int)
    try:
        assert cmd_up.main(["purge", "--state-dir", str(tmp_path), "--dry-run"]) == 1
    finally:
        os.close(running)
    out, err = capsys.readouterr()
    assert out == "" and f"the cloud of {tmp_path} is running (pid {os.getpid()}" in err


def test_a_lock_file_it_cannot_open_is_a_refusal_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path(uplock.path_of(str(tmp_path))).mkdir()  # as unopenable for writing as another's
    assert cmd_up.main(["purge", "--state-dir", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"saphira purge: cannot take {tmp_path}/")
