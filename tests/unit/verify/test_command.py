"""`saphira verify`'s command line: usage and credential errors exit 2."""

from __future__ import annotations

import pytest

from saphira.cmd import up


def test_a_bad_port_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert up.main(["verify", "server", "web", "--port", "22/sctp", "--os-cloud", "x"]) == 2
    assert "--port '22/sctp': the protocol must be tcp or udp" in capsys.readouterr().err


def test_an_unknown_cloud_is_an_auth_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", "/nonexistent/clouds.yaml")
    assert up.main(["verify", "cloud", "--os-cloud", "nowhere"]) == 2
    assert "nowhere" in capsys.readouterr().err


def test_verify_needs_what_to_verify() -> None:
    with pytest.raises(SystemExit) as exited:
        up.main(["verify"])
    assert exited.value.code == 2
