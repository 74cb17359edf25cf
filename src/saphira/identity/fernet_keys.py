"""The Fernet key repository, laid out as keystone-manage fernet_setup makes it.

Files are named by integers: ``0`` is the staged key (the next primary, so
every server already knows it before it starts signing), the highest number is
the primary that encrypts, the rest are secondaries that still decrypt tokens
issued before a rotation. Rotation keeps at most ``max_active_keys``.
"""

from __future__ import annotations

import os

from cryptography.fernet import Fernet, MultiFernet

from saphira.exception import ConfigError


class KeyRepository:
    def __init__(self, path: str, max_active_keys: int = 3) -> None:
        self.path = path
        self.max_active_keys = max(max_active_keys, 2)

    def _indexes(self) -> list[int]:
        if not os.path.isdir(self.path):
            return []
        return sorted(int(name) for name in os.listdir(self.path) if name.isdigit())

    def _write(self, index: int, key: bytes) -> None:
        final = os.path.join(self.path, str(index))
        temp = os.path.join(self.path, f".{index}.tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
        os.replace(temp, final)  # readers never see a half-written key

    def setup(self) -> bool:
        """Create the directory with a staged and a primary key; False if already there."""
        os.makedirs(self.path, mode=0o700, exist_ok=True)
        os.chmod(self.path, 0o700)
        if self._indexes():
            return False
        self._write(0, Fernet.generate_key())
        self._write(1, Fernet.generate_key())
        return True

    def rotate(self) -> int:
        """Promote the staged key, stage a new one, drop the oldest; returns the new primary."""
        indexes = self._indexes()
        if 0 not in indexes:
            raise ConfigError(f"no Fernet key repository at {self.path}; run fernet_setup")
        primary = max(indexes) + 1
        os.replace(os.path.join(self.path, "0"), os.path.join(self.path, str(primary)))
        self._write(0, Fernet.generate_key())
        secondaries = [i for i in self._indexes() if i not in (0, primary)]
        excess = len(secondaries) + 2 - self.max_active_keys
        for index in secondaries[: max(excess, 0)]:
            os.remove(os.path.join(self.path, str(index)))
        return primary

    def load(self) -> list[bytes]:
        """Keys with the primary first, then the others newest first, staged last."""
        indexes = self._indexes()
        if not indexes:
            raise ConfigError(f"no Fernet keys in {self.path}; run 'saphira-manage fernet_setup'")
        ordered = [*sorted((i for i in indexes if i != 0), reverse=True), 0]
        keys = []
        for index in ordered:
            with open(os.path.join(self.path, str(index)), "rb") as handle:
                keys.append(handle.read().strip())
        return keys

    def fernet(self) -> MultiFernet:
        return MultiFernet([Fernet(key) for key in self.load()])
