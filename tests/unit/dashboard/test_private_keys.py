"""A generated private key is held for its session's one download, then gone."""

from __future__ import annotations

from saphira.dashboard.private_keys import PrivateKeys

PEM = "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n"


def test_a_key_is_taken_once_and_only_by_its_session() -> None:
    keys = PrivateKeys()
    keys.hold("s1", "k", PEM)
    assert keys.waiting("s1", "k") and not keys.waiting("s2", "k")
    assert keys.take("s2", "k") is None
    assert keys.take("s1", "k") == PEM.encode()
    assert keys.take("s1", "k") is None and not keys.waiting("s1", "k") and len(keys) == 0


def test_the_bytes_held_are_overwritten_when_taken() -> None:
    keys = PrivateKeys()
    keys.hold("s1", "k", PEM)
    held = keys._table[("s1", "k")].key
    assert keys.take("s1", "k") == PEM.encode()
    assert held == bytearray(len(PEM))


def test_an_unclaimed_key_expires_and_a_session_end_drops_its_keys() -> None:
    now = [0.0]
    keys = PrivateKeys(keep=60, clock=lambda: now[0])
    keys.hold("s1", "old", PEM)
    now[0] = 30
    keys.hold("s1", "new", PEM)
    keys.hold("s2", "theirs", PEM)
    now[0] = 61
    assert not keys.waiting("s1", "old") and keys.waiting("s1", "new")
    keys.drop("s1")
    assert not keys.waiting("s1", "new") and keys.take("s2", "theirs") == PEM.encode()
