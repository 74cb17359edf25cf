"""The host probe's entry point refuses anything but a namespace name, an address and a
port, before it runs anything."""

from __future__ import annotations

import pytest

from saphira.privsep import context, reach
from saphira.privsep.validate import InvalidArgument


@pytest.fixture(autouse=True)
def in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validation is the entry point's own: run it here rather than in a helper."""
    monkeypatch.setattr(context.default, "client_mode", False)


@pytest.mark.parametrize(
    ("namespace", "address", "port"),
    [("qdhcp-x; id", "10.0.0.5", 22), ("../x", "10.0.0.5", 22), ("qdhcp-a", "10.0.0.5; id", 22),
     ("qdhcp-a", "example.org", 22), ("qdhcp-a", "10.0.0.5", 0), ("qdhcp-a", "10.0.0.5", 70000),
     ("qdhcp-a", "10.0.0.5", "22")],
)  # fmt: skip
def test_hostile_arguments_are_refused(namespace: str, address: str, port: int) -> None:
    ran: list[list[str]] = []

    def run(argv: list[str], **kw: object) -> str:
        ran.append(argv)
        return ""

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reach, "run", run)
        with pytest.raises(InvalidArgument):
            reach.tcp_connect(namespace, address, port)
    assert ran == []


def test_the_connect_runs_in_the_namespace_with_its_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[list[str], str | None]] = []

    def run(argv: list[str], *, namespace: str | None = None, **kw: object) -> str:
        calls.append((argv, namespace))
        return "Connection refused\n"

    monkeypatch.setattr(reach, "run", run)
    assert reach.tcp_connect("qdhcp-a", "10.0.0.5", 80) == "Connection refused"
    [(argv, namespace)] = calls
    assert namespace == "qdhcp-a" and argv[-3:] == ["10.0.0.5", "80", "3"]
