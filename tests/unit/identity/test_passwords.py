"""scrypt password hashes."""

from __future__ import annotations

from saphira.identity import passwords


def test_hash_verifies_and_is_salted() -> None:
    first = passwords.hash_password("s3cret", 4)
    second = passwords.hash_password("s3cret", 4)
    assert first != second
    assert first.startswith("scrypt$4$")
    assert "s3cret" not in first
    assert passwords.verify_password("s3cret", first)
    assert not passwords.verify_password("s3creT", first)


def test_old_cost_still_verifies() -> None:
    stored = passwords.hash_password("pw", 5)
    assert passwords.verify_password("pw", stored)  # cost travels with the hash


def test_garbage_hashes_never_match() -> None:
    for stored in (None, "", "plain", "bcrypt$1$2$3$4$5", "scrypt$x$8$1$AA==$AA=="):
        assert not passwords.verify_password("pw", stored)
