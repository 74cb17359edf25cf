"""`saphira up --compute-driver NAME` and `--[no-]test-image` (no server started)."""

from __future__ import annotations

from pathlib import Path

from saphira.cmd import up as cmd_up
from saphira.service import up as service_up


def test_compute_driver_flag_wins_over_files(tmp_path: Path) -> None:
    nova = tmp_path / "nova.conf"
    nova.write_text("[DEFAULT]\ncompute_driver = libvirt.LibvirtDriver\n")
    assert service_up.load_conf(str(tmp_path)).compute_driver == "auto"
    assert service_up.load_conf(str(tmp_path), [str(nova)]).compute_driver == (
        "libvirt.LibvirtDriver"
    )
    flagged = service_up.load_conf(str(tmp_path), [str(nova)], compute_driver="fake.FakeDriver")
    assert flagged.compute_driver == "fake.FakeDriver"


def test_test_image_is_on_unless_turned_off() -> None:
    parse = cmd_up._parser().parse_args
    assert parse(["up"]).test_image is True
    assert parse(["up", "--no-test-image"]).test_image is False
    assert parse(["up", "--compute-driver", "fake.FakeDriver"]).compute_driver == "fake.FakeDriver"
