"""Password hashing with scrypt, a memory-hard KDF, from `cryptography`.

The stored form names its parameters (``scrypt$<log2 n>$<r>$<p>$<salt>$<key>``)
so raising [identity] password_hash_cost later still verifies old hashes.
"""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidKey
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

PREFIX = "scrypt"
_R = 8
_P = 1
_LENGTH = 32


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def _kdf(salt: bytes, log_n: int, r: int, p: int) -> Scrypt:
    return Scrypt(salt=salt, length=_LENGTH, n=2**log_n, r=r, p=p)


def hash_password(password: str, cost: int) -> str:
    salt = os.urandom(16)
    key = _kdf(salt, cost, _R, _P).derive(password.encode("utf-8"))
    return f"{PREFIX}${cost}${_R}${_P}${_b64(salt)}${_b64(key)}"


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches; a malformed or empty hash never matches."""
    if not stored:
        return False
    try:
        prefix, log_n, r, p, salt, key = stored.split("$")
        if prefix != PREFIX:
            return False
        kdf = _kdf(base64.b64decode(salt), int(log_n), int(r), int(p))
        kdf.verify(password.encode("utf-8"), base64.b64decode(key))  # constant time
    except (ValueError, InvalidKey):
        return False
    return True


class Hasher:
    """The two costly operations of a login, behind one object a test can count."""

    def hash(self, password: str, cost: int) -> str:
        return hash_password(password, cost)

    def verify(self, password: str, stored: str | None) -> bool:
        return verify_password(password, stored)
