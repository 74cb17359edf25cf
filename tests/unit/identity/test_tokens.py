"""The key repository and the Fernet token provider."""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import os
import stat
from pathlib import Path

import pytest

from saphira.exception import ConfigError, Unauthorized
from saphira.identity.fernet_keys import KeyRepository
from saphira.identity.tokens import TokenPayload, TokenProvider, utcnow


def _payload() -> TokenPayload:
    return TokenPayload(
        user_id="u1",
        methods=("password",),
        expires_at=utcnow() + dt.timedelta(hours=1),
        project_id="p1",
    )


def test_setup_makes_private_staged_and_primary_keys(tmp_path: Path) -> None:
    repo = KeyRepository(str(tmp_path / "keys"))
    assert repo.setup() is True
    assert repo.setup() is False  # idempotent: keeps the keys
    assert sorted(os.listdir(tmp_path / "keys")) == ["0", "1"]
    assert stat.S_IMODE(os.stat(tmp_path / "keys").st_mode) == 0o700
    for name in ("0", "1"):
        assert stat.S_IMODE(os.stat(tmp_path / "keys" / name).st_mode) == 0o600


def test_payload_round_trip(tmp_path: Path) -> None:
    repo = KeyRepository(str(tmp_path))
    repo.setup()
    provider = TokenProvider(repo)
    payload = _payload()
    payload = dataclasses.replace(payload, user_id="user-id-that-must-not-show-in-the-token")
    token = provider.issue(payload)
    assert provider.decode(token) == payload
    # Encrypted, not only signed: neither the id nor its base64 form appears.
    # (A short id such as "u1" would turn up in random base64 now and then.)
    for form in (payload.user_id, base64.urlsafe_b64encode(payload.user_id.encode()).decode()):
        assert form[:20] not in token


def test_rotation_keeps_previous_tokens_until_key_drops_out(tmp_path: Path) -> None:
    repo = KeyRepository(str(tmp_path), max_active_keys=3)
    repo.setup()
    provider = TokenProvider(repo)
    old = provider.issue(_payload())
    assert repo.rotate() == 2
    assert sorted(os.listdir(tmp_path)) == ["0", "1", "2"]
    assert provider.decode(old).user_id == "u1"
    new = provider.issue(_payload())
    assert repo.rotate() == 3
    assert sorted(os.listdir(tmp_path)) == ["0", "2", "3"]
    assert provider.decode(new).user_id == "u1"
    with pytest.raises(Unauthorized):
        provider.decode(old)


def test_staged_key_already_decrypts(tmp_path: Path) -> None:
    """Another server that rotated first issues with our staged key: we accept it."""
    repo = KeyRepository(str(tmp_path))
    repo.setup()
    other = tmp_path.parent / f"{tmp_path.name}-copy"
    other.mkdir()
    for name in ("0", "1"):
        (other / name).write_bytes((tmp_path / name).read_bytes())
    KeyRepository(str(other)).rotate()
    token = TokenProvider(KeyRepository(str(other))).issue(_payload())
    assert TokenProvider(repo).decode(token).user_id == "u1"


@pytest.mark.parametrize("token", ["", "garbage", "gAAAAA" + "x" * 100, "é"])
def test_foreign_tokens_are_unauthorized(tmp_path: Path, token: str) -> None:
    repo = KeyRepository(str(tmp_path))
    repo.setup()
    with pytest.raises(Unauthorized):
        TokenProvider(repo).decode(token)


def test_missing_repository_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="fernet_setup"):
        KeyRepository(str(tmp_path / "none")).load()
    with pytest.raises(ConfigError, match="fernet_setup"):
        KeyRepository(str(tmp_path / "none")).rotate()
