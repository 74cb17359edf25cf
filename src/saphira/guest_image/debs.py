"""Fetch and unpack the Debian packages the tiny image is made of.

The .debs are cached by exact package version, so a rebuild is offline and the
same inputs give the same image. Versions are resolved through the local apt
cache only (no network); only a version not yet cached is downloaded, through
``apt-get download`` and so from the mirror apt already uses.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from saphira.guest_image import ssh

KERNEL_META = "linux-image-amd64"
BUSYBOX = "busybox-static"


class ImageBuildError(RuntimeError):
    """The image could not be built; the message says which step failed and why."""


@dataclass(frozen=True)
class Package:
    name: str
    version: str

    @property
    def deb_name(self) -> str:
        # apt-get download escapes the epoch colon as %3a.
        return f"{self.name}_{self.version.replace(':', '%3a')}_amd64.deb"


def default_cache_dir() -> Path:
    """$SAPHIRA_IMAGE_CACHE, else $XDG_CACHE_HOME/saphira, else ~/.cache/saphira."""
    explicit = os.environ.get("SAPHIRA_IMAGE_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "saphira" / "debs"


def _run(argv: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise ImageBuildError(f"{argv[0]} is not installed") from exc
    if done.returncode != 0:
        err = (done.stderr or done.stdout).strip().splitlines()
        raise ImageBuildError(f"{' '.join(argv)} failed: {err[-1] if err else done.returncode}")
    return done.stdout


def candidate(name: str) -> str:
    """The version apt would install, from the local package lists."""
    for line in _run(["apt-cache", "policy", name]).splitlines():
        key, _, value = line.strip().partition(":")
        if key == "Candidate" and value.strip() not in ("", "(none)"):
            return value.strip()
    raise ImageBuildError(f"apt knows no candidate for {name} (run apt-get update?)")


def kernel_package() -> str:
    """linux-image-<abi>-amd64, the package the linux-image-amd64 meta package names."""
    for line in _run(["apt-cache", "depends", KERNEL_META]).splitlines():
        key, _, value = line.strip().partition(":")
        if key == "Depends" and value.strip().startswith("linux-image-"):
            return value.strip()
    raise ImageBuildError(f"cannot tell which kernel {KERNEL_META} depends on")


def _cached(prefix: str, cache: Path) -> Package:
    """The one cached .deb whose name starts with prefix: apt's lists are gone."""
    found = sorted(cache.glob(f"{prefix}_*_amd64.deb"))
    if len(found) != 1:
        raise ImageBuildError(f"apt cannot resolve {prefix} and the cache holds {len(found)}")
    name, version, _ = found[0].name.split("_")
    return Package(name, version.replace("%3a", ":"))


def resolve(kernel: str | None, cache: Path) -> list[Package]:
    """The exact packages to use: the given or current Debian kernel, busybox-static
    and the SSH server's (``ssh.PACKAGES``).

    Without usable apt lists (an offline machine) the cached .debs decide.
    """
    names = (BUSYBOX, *ssh.PACKAGES)
    try:
        kname = kernel or kernel_package()
        return [Package(kname, candidate(kname)), *(Package(n, candidate(n)) for n in names)]
    except ImageBuildError:
        kernel_prefix = kernel or "linux-image-*-amd64"
        return [_cached(kernel_prefix, cache), *(_cached(n, cache) for n in names)]


def fetch(packages: list[Package], cache: Path) -> list[Path]:
    """Paths of the cached .debs, downloading only the missing ones.

    One download at a time per cache: parallel test workers share it, and
    apt-get writes straight to the final file names.
    """
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".download.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        missing = [p for p in packages if not (cache / p.deb_name).is_file()]
        if missing:
            argv = ["apt-get", "download", "-q", *[f"{p.name}={p.version}" for p in missing]]
            _run(argv, cache)
    paths = [cache / p.deb_name for p in packages]
    for path in paths:
        if not path.is_file():
            raise ImageBuildError(f"apt-get download did not produce {path.name}")
    return paths


def extract(debs: list[Path], dest: Path) -> None:
    """Unpack the .debs' file trees into dest (no maintainer scripts run)."""
    dest.mkdir(parents=True, exist_ok=True)
    for deb in debs:
        _run(["dpkg-deb", "-x", str(deb), str(dest)])
