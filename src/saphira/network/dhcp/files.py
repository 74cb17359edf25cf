"""Where one network's dnsmasq keeps its files, and writing them only when they change."""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

from saphira.network.dhcp.errors import DhcpError

DIR_MODE = 0o711  # dnsmasq drops to "nobody" and re-opens the files by path on SIGHUP
FILE_MODE = 0o644


@dataclasses.dataclass(frozen=True)
class NetworkFiles:
    directory: Path

    @classmethod
    def under(cls, root: Path, network_id: str) -> NetworkFiles:
        """The id names a directory that is later removed whole: it must stay one level down."""
        if not network_id or "/" in network_id or network_id.startswith("."):
            raise DhcpError(detail=f"network id {network_id!r} cannot name a directory")
        return cls(root / network_id)

    @property
    def network_id(self) -> str:
        return self.directory.name

    @property
    def hosts(self) -> Path:
        return self.directory / "host"

    @property
    def opts(self) -> Path:
        return self.directory / "opts"

    @property
    def leases(self) -> Path:
        return self.directory / "leases"

    @property
    def pid(self) -> Path:
        return self.directory / "pid"

    @property
    def log(self) -> Path:
        return self.directory / "dnsmasq.log"


def ensure_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(DIR_MODE)


def check_reachable(path: Path) -> None:
    """Fail early, naming the directory, if "nobody" could not reach files under ``path``.

    Otherwise dnsmasq starts fine and only a later SIGHUP silently fails to
    re-read the hosts file.
    """
    for directory in (path, *path.parents):
        if directory.exists() and not directory.stat().st_mode & stat.S_IXOTH:
            raise DhcpError(
                detail=f"{directory} is not traversable by others (chmod o+x): dnsmasq "
                "runs as nobody and re-reads its files from there"
            )


def write_if_changed(path: Path, text: str) -> bool:
    """Atomically replace ``path`` with ``text``; False (and no write) when it already is."""
    try:
        if path.read_text() == text:
            return False
    except FileNotFoundError:
        pass
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text)
    temporary.chmod(FILE_MODE)
    os.replace(temporary, path)
    return True


def served_networks(root: Path) -> list[str]:
    """Network ids that have a directory under ``root``: what this agent served before."""
    if not root.is_dir():
        return []
    return sorted(entry.name for entry in root.iterdir() if entry.is_dir())
