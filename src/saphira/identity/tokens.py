"""Fernet tokens: a compact JSON payload, encrypted and signed with MultiFernet.

The payload carries microsecond issue and expiry times itself (Fernet's own
timestamp is whole seconds), so a revocation at time T never catches a token
issued a moment after it. Expiry is ours to check, not Fernet's ttl, because
the expiry is fixed at issue and kept across rescoping.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
from dataclasses import dataclass, field

from cryptography.fernet import InvalidToken, MultiFernet

from saphira.exception import Unauthorized
from saphira.identity.fernet_keys import KeyRepository

SYSTEM_ALL = "all"


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def new_audit_id() -> str:
    return base64.urlsafe_b64encode(os.urandom(16)).decode("ascii").rstrip("=")


_EPOCH = dt.datetime(1970, 1, 1)
_MICRO = dt.timedelta(microseconds=1)


def _epoch(when: dt.datetime) -> int:
    """Whole microseconds: a float would round away the last digit now and then."""
    return (when - _EPOCH) // _MICRO


def _from_epoch(value: int) -> dt.datetime:
    return _EPOCH + int(value) * _MICRO


@dataclass(frozen=True)
class TokenPayload:
    """What a token says; times are naive UTC."""

    user_id: str
    methods: tuple[str, ...]
    expires_at: dt.datetime
    issued_at: dt.datetime = field(default_factory=utcnow)
    audit_ids: tuple[str, ...] = field(default_factory=lambda: (new_audit_id(),))
    project_id: str | None = None
    domain_id: str | None = None
    system: str | None = None

    def to_json(self) -> bytes:
        data = {
            "u": self.user_id,
            "m": list(self.methods),
            "e": _epoch(self.expires_at),
            "i": _epoch(self.issued_at),
            "a": list(self.audit_ids),
            "p": self.project_id,
            "d": self.domain_id,
            "s": self.system,
        }
        return json.dumps(data, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_json(cls, raw: bytes) -> TokenPayload:
        data = json.loads(raw)
        return cls(
            user_id=str(data["u"]),
            methods=tuple(data["m"]),
            expires_at=_from_epoch(data["e"]),
            issued_at=_from_epoch(data["i"]),
            audit_ids=tuple(data["a"]),
            project_id=data["p"],
            domain_id=data["d"],
            system=data["s"],
        )


class TokenProvider:
    """Encrypts and decrypts payloads with the repository's current keys.

    Keys are re-read when the repository directory changes, so a rotation by
    `saphira-manage fernet_rotate` is picked up without a restart.
    """

    def __init__(self, keys: KeyRepository) -> None:
        self.keys = keys
        self._stamp: int | None = None
        self._fernet: MultiFernet | None = None

    def _current(self) -> MultiFernet:
        stamp = os.stat(self.keys.path).st_mtime_ns
        if self._fernet is None or stamp != self._stamp:
            self._fernet, self._stamp = self.keys.fernet(), stamp
        return self._fernet

    def issue(self, payload: TokenPayload) -> str:
        return self._current().encrypt(payload.to_json()).decode("ascii")

    def decode(self, token: str) -> TokenPayload:
        """The payload of a token we made; Unauthorized for anything else."""
        try:
            raw = self._current().decrypt(token.encode("ascii"))
            return TokenPayload.from_json(raw)
        except (InvalidToken, UnicodeError, ValueError, KeyError, TypeError):
            raise Unauthorized("The request you have made requires authentication.") from None
