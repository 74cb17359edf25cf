"""The test image and flavor ``saphira up`` registers, in process with a stand-in build.

The real build is covered by tests/functional/test_cloud_test_image.py; here
a small qcow2 made by qemu-img stands in for it, so every path is quick.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.orm import Session

from saphira.db.api.connect import api_url, session_for
from saphira.db.api.models import Flavor
from saphira.db.image import make_image_engine
from saphira.db.image.models import Image
from saphira.guest_image import ImageBuildError
from saphira.service import firstrun, tiny_image
from saphira.service import up as service_up
from tests.environment import require_tools

pytestmark = pytest.mark.functional


@pytest.fixture(autouse=True)
def _qemu_img() -> None:
    require_tools("qemu-img")


@pytest.fixture
def conf(tmp_path: Path) -> cfg.ConfigOpts:
    """A prepared state directory, as ``saphira up`` has it before it serves."""
    conf, _ = service_up.configure(str(tmp_path / "state"), port_offset=11)
    firstrun.prepare(conf)
    return conf


def _qcow2(path: Path) -> Path:
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(path), "64M"], check=True)
    return path


class Builds:
    """The stand-in for guest_image.build: a 64 MiB qcow2 (or given bytes); with
    ``direct``, a kernel and ramdisk of plain bytes (or the ramdisk ``bad_ramdisk``)."""

    def __init__(self, data: bytes | None = None, *, direct: bool = False,
                 bad_ramdisk: bool = False) -> None:  # fmt: skip
        self.data, self.direct, self.bad_ramdisk = data, direct, bad_ramdisk
        self.calls: list[Path] = []

    def __call__(self, out_dir: Path) -> tiny_image.Parts:
        self.calls.append(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        disk = out_dir / "disk.qcow2"
        if self.data is not None:
            disk.write_bytes(self.data)
        else:
            _qcow2(disk)
        if not self.direct:
            return tiny_image.Parts(disk)
        kernel, ramdisk = out_dir / "vmlinux", out_dir / "initrd"
        kernel.write_bytes(b"\x7fELF kernel" * 1000)
        if self.bad_ramdisk:
            _qcow2(ramdisk)  # declared ari (raw data), but qemu-img finds a qcow2
        else:
            ramdisk.write_bytes(b"070701 ramdisk" * 1000)
        return tiny_image.Parts(disk, kernel, ramdisk, "console=ttyS0 quiet")


def _images(conf: cfg.ConfigOpts) -> Iterator[Image]:
    engine = make_image_engine(conf)
    try:
        with Session(engine) as session:
            yield from session.scalars(sa.select(Image))
    finally:
        engine.dispose()


def _flavors(conf: cfg.ConfigOpts) -> list[tuple[str, int, int, int, bool]]:
    with session_for("api", api_url(conf), conf) as session:
        rows = session.scalars(sa.select(Flavor))
        return [(f.name, f.vcpus, f.memory_mb, f.root_gb, f.is_public) for f in rows]


def _own(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The registration's own lines: the worker's other threads may log meanwhile."""
    return [r.getMessage() for r in caplog.records if r.name == tiny_image.LOG.name]


def test_first_call_registers_image_and_flavor_later_ones_nothing(
    conf: cfg.ConfigOpts, caplog: pytest.LogCaptureFixture
) -> None:
    build = Builds()
    with caplog.at_level(logging.INFO, logger="saphira.service.tiny_image"):
        tiny_image.register(conf, build)
    assert build.calls == [Path(conf.state_path) / "test-image"]
    (image,) = list(_images(conf))
    assert (image.name, image.status, image.visibility) == ("saphira-tiny", "active", "public")
    assert (image.disk_format, image.container_format) == ("qcow2", "bare")
    assert image.virtual_size == 64 << 20
    assert {p.name: p.value for p in image.properties} == {"hw_disk_bus": "virtio"}
    assert image.owner is not None  # the admin project
    assert _flavors(conf) == [("saphira.tiny", 1, 128, 1, True)]
    assert _own(caplog) == [f"registered image saphira-tiny ({image.id}) and flavor saphira.tiny"]
    caplog.clear()
    tiny_image.register(conf, build)
    assert len(build.calls) == 1  # an existing image is not even built again
    assert [i.id for i in _images(conf)] == [image.id]
    assert len(_flavors(conf)) == 1
    assert _own(caplog) == []


def test_a_failed_build_is_a_warning_and_the_flavor_still_comes(
    conf: cfg.ConfigOpts, caplog: pytest.LogCaptureFixture
) -> None:
    def fails(out_dir: Path) -> tiny_image.Parts:
        raise ImageBuildError("apt-get download linux-image-amd64 failed: no mirror")

    tiny_image.register(conf, fails)
    assert list(_images(conf)) == []
    assert [f[0] for f in _flavors(conf)] == ["saphira.tiny"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "test image saphira-tiny not registered: building it failed: "
        "apt-get download linux-image-amd64 failed: no mirror"
    ]


def test_refused_data_leaves_no_image_behind(
    conf: cfg.ConfigOpts, caplog: pytest.LogCaptureFixture
) -> None:
    tiny_image.register(conf, Builds(b"not a qcow2 at all" * 100))
    assert list(_images(conf)) == []
    assert not list((Path(conf.state_path) / "images").iterdir())
    assert any("upload refused" in r.getMessage() for r in caplog.records)


def test_a_direct_boot_registers_kernel_and_ramdisk_named_by_the_disk(
    conf: cfg.ConfigOpts, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="saphira.service.tiny_image"):
        tiny_image.register(conf, Builds(direct=True))
    images = {str(image.name): image for image in _images(conf)}
    assert sorted(images) == ["saphira-tiny", "saphira-tiny-kernel", "saphira-tiny-ramdisk"]
    kernel, ramdisk = images["saphira-tiny-kernel"], images["saphira-tiny-ramdisk"]
    assert (kernel.disk_format, kernel.container_format, kernel.status) == ("aki", "aki", "active")
    assert (ramdisk.disk_format, ramdisk.container_format) == ("ari", "ari")
    assert {p.name: p.value for p in images["saphira-tiny"].properties} == {
        "hw_disk_bus": "virtio", "kernel_id": kernel.id, "ramdisk_id": ramdisk.id,
        "os_command_line": "console=ttyS0 quiet",
    }  # fmt: skip
    disk_id = images["saphira-tiny"].id
    assert _own(caplog) == [f"registered image saphira-tiny ({disk_id}) and flavor saphira.tiny"]


def test_a_refused_ramdisk_leaves_neither_it_nor_the_kernel_behind(
    conf: cfg.ConfigOpts, caplog: pytest.LogCaptureFixture
) -> None:
    tiny_image.register(conf, Builds(direct=True, bad_ramdisk=True))
    assert list(_images(conf)) == []
    assert not list((Path(conf.state_path) / "images").iterdir())
    assert any("upload refused" in r.getMessage() for r in caplog.records)
