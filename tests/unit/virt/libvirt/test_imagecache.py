"""The base-image cache over an in-memory image service and the real qemu-img."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from saphira.virt.errors import VirtError
from saphira.virt.libvirt import disks
from saphira.virt.libvirt.filelock import locked
from saphira.virt.libvirt.imagecache import BOOT_FILES, ImageCache
from tests.unit.virt.libvirt.fake_images import FakeImages, qcow2, raw_bytes

REPO = Path(__file__).resolve().parents[4]
HOUR = 3600


@pytest.fixture
def images() -> FakeImages:
    return FakeImages()


def _cache(tmp_path: Path, images: FakeImages) -> ImageCache:
    return ImageCache(tmp_path / "_base", images)


def test_raw_image_is_downloaded_verified_and_named_by_sha1(
    tmp_path: Path, images: FakeImages
) -> None:
    images.add("img-1", raw_bytes(), "raw")
    cache = _cache(tmp_path, images)
    cached = cache.fetch("img-1")
    assert cached.path == tmp_path / "_base" / hashlib.sha1(b"img-1").hexdigest()
    assert (cached.disk_format, cached.virtual_size) == ("raw", 1024 * 1024)
    assert cached.path.read_bytes() == raw_bytes()
    assert cached.path.stat().st_mode & 0o777 == 0o644
    assert os.listdir(cache.base_dir) == [cached.path.name]
    assert images.closed == 1


def test_cached_base_is_reused_without_a_request_and_touched(
    tmp_path: Path, images: FakeImages
) -> None:
    images.add("img-1", qcow2(tmp_path / "src.qcow2").read_bytes(), "qcow2")
    cache = _cache(tmp_path, images)
    first = cache.fetch("img-1")
    os.utime(first.path, (1000, 1000))
    again = cache.fetch("img-1")
    assert again == first
    assert (again.disk_format, again.virtual_size) == ("qcow2", 16 * 1024 * 1024)
    assert images.opened == ["img-1"]
    assert again.path.stat().st_mtime > 1000  # touched: the cache's age check sees it used


def test_one_download_for_eight_concurrent_builds(tmp_path: Path) -> None:
    images = FakeImages(pause=lambda: time.sleep(0.01))
    images.add("img-1", raw_bytes(), "raw")
    cache = _cache(tmp_path, images)
    start = threading.Barrier(8)
    results: list[Path] = []

    def build() -> None:
        start.wait()
        results.append(cache.fetch("img-1").path)

    threads = [threading.Thread(target=build) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(results) == 8 and len(set(results)) == 1
    assert images.opened == ["img-1"]
    assert os.listdir(cache.base_dir) == [results[0].name]


def test_one_download_for_two_processes(tmp_path: Path) -> None:
    base_dir, marks = tmp_path / "_base", tmp_path / "marks"
    marks.mkdir()
    argv = [sys.executable, "-m", "tests.unit.virt.libvirt.fake_images", str(base_dir), str(marks),
            "2"]  # fmt: skip
    workers = [
        subprocess.Popen([*argv, name], cwd=REPO, stdout=subprocess.PIPE, text=True)
        for name in ("a", "b")
    ]
    outputs = [worker.communicate(timeout=60)[0].strip() for worker in workers]
    assert [worker.returncode for worker in workers] == [0, 0]
    assert outputs[0] == outputs[1] == str(ImageCache(base_dir, FakeImages()).path_for("img"))
    assert (marks / "opened").read_text() == "img\n"
    assert Path(outputs[0]).read_bytes() == raw_bytes()


@pytest.mark.parametrize(
    ("hashes", "why"),
    [
        ({"hash_value": "0" * 128}, "sha512 of the data does not match"),
        ({"hash_algo": "", "hash_value": "", "checksum": "0" * 32}, "md5 of the data"),
        ({"hash_algo": "", "hash_value": "", "checksum": ""}, "no checksum"),
        ({"hash_algo": "whirlpool-9"}, "unknown hash"),
    ],
)
def test_data_not_matching_its_hash_is_refused_and_removed(
    tmp_path: Path, images: FakeImages, hashes: dict[str, str], why: str
) -> None:
    images.add("img-1", raw_bytes(), "raw", hashes=hashes)
    cache = _cache(tmp_path, images)
    with pytest.raises(VirtError, match=f"image img-1: .*{why}"):
        cache.fetch("img-1")
    assert os.listdir(cache.base_dir) == []
    assert images.closed == 1


def test_data_shorter_than_its_size_is_refused(tmp_path: Path, images: FakeImages) -> None:
    images.add("img-1", raw_bytes(), "raw", size=1024 * 1024 + 1)
    cache = _cache(tmp_path, images)
    with pytest.raises(VirtError, match="got 1048576 bytes, the image service says 1048577"):
        cache.fetch("img-1")
    assert os.listdir(cache.base_dir) == []


def test_qcow2_with_a_backing_file_is_refused(tmp_path: Path, images: FakeImages) -> None:
    backing = tmp_path / "host-file"
    backing.write_bytes(raw_bytes())
    images.add("img-1", qcow2(tmp_path / "evil.qcow2", backing=backing).read_bytes(), "qcow2")
    cache = _cache(tmp_path, images)
    with pytest.raises(VirtError, match="image img-1 refused: it has a backing file"):
        cache.fetch("img-1")
    assert os.listdir(cache.base_dir) == []


def test_data_of_another_format_than_declared_is_refused(
    tmp_path: Path, images: FakeImages
) -> None:
    images.add("img-1", qcow2(tmp_path / "a.qcow2").read_bytes(), "raw")
    cache = _cache(tmp_path, images)
    with pytest.raises(VirtError, match="declared raw but its data is qcow2"):
        cache.fetch("img-1")
    assert os.listdir(cache.base_dir) == []


def test_formats_that_cannot_boot_are_refused_before_download(
    tmp_path: Path, images: FakeImages
) -> None:
    images.pause = lambda: pytest.fail("downloaded an unbootable image")
    images.add("img-1", raw_bytes(), "iso")
    with pytest.raises(VirtError, match="disk format 'iso' cannot be booted here"):
        _cache(tmp_path, images).fetch("img-1")
    assert images.closed == 1


def test_cleanup_removes_only_unused_old_bases_and_stray_temps(
    tmp_path: Path, images: FakeImages
) -> None:
    cache = _cache(tmp_path, images)
    bases = {}
    for name in ("used-old", "unused-old", "unused-new", "locked-old"):
        images.add(name, raw_bytes(4096), "raw")
        bases[name] = cache.fetch(name).path
    now = time.time()
    for name, path in bases.items():
        age = 10 if name.endswith("new") else 2 * HOUR
        os.utime(path, (now - age, now - age))
    stray, live = cache.base_dir / "x.abc.part", cache.base_dir / "y.def.part"
    stray.write_bytes(b"half")
    live.write_bytes(b"half")
    os.utime(stray, (now - 2 * HOUR, now - 2 * HOUR))
    locked_base = bases["locked-old"]
    with locked(locked_base.with_name(f"{locked_base.name}.lock")):
        removed = cache.cleanup({bases["used-old"]}, HOUR, now=now)
    assert sorted(removed) == sorted([bases["unused-old"], stray])
    left = sorted(os.listdir(cache.base_dir))
    assert left == sorted([bases[n].name for n in ("used-old", "unused-new", "locked-old")]
                          + [live.name])  # fmt: skip


def test_overlay_backs_onto_the_cached_base(tmp_path: Path, images: FakeImages) -> None:
    images.add("img-1", qcow2(tmp_path / "src.qcow2").read_bytes(), "qcow2")
    base = _cache(tmp_path, images).fetch("img-1")
    disks.create_overlay(base.path, base.disk_format, tmp_path / "disk", 1)
    assert disks.backing_file(tmp_path / "disk") == base.path


def test_a_kernel_and_a_ramdisk_are_fetched_only_as_boot_files(
    tmp_path: Path, images: FakeImages
) -> None:
    images.add("kernel", raw_bytes(), "aki")
    images.add("sneaky", qcow2(tmp_path / "a.qcow2").read_bytes(), "ari")
    cache = _cache(tmp_path, images)
    with pytest.raises(VirtError, match="disk format 'aki' cannot be booted here"):
        cache.fetch("kernel")  # as a root disk
    assert images.opened == ["kernel"] and os.listdir(cache.base_dir) == []
    fetched = cache.fetch("kernel", BOOT_FILES)
    assert fetched.path.read_bytes() == raw_bytes()
    with pytest.raises(VirtError, match="declared ari but its data is qcow2"):
        cache.fetch("sneaky", BOOT_FILES)
    assert os.listdir(cache.base_dir) == [fetched.path.name]
