"""The compute API's key pair calls behind the Key pairs pages (the user's own pairs).

openstacksdk asks for key pairs at microversion 2.10, below 2.92, so a create
without a public key has Nova generate the pair and return its private key once.
"""

from __future__ import annotations

from dataclasses import dataclass

from openstack.compute.v2.keypair import Keypair

from saphira.dashboard.cloud import Conn

KEY_TYPES = ("ssh", "x509")


@dataclass(frozen=True)
class KeyRow:
    name: str
    type: str
    fingerprint: str
    public_key: str


@dataclass(frozen=True)
class Generated:
    row: KeyRow
    private_key: str


def _row(key: Keypair) -> KeyRow:
    return KeyRow(str(key.name), str(key.type or "ssh"), str(key.fingerprint or ""),
                  str(key.public_key or ""))  # fmt: skip


def keypairs(conn: Conn) -> list[KeyRow]:
    return sorted((_row(k) for k in conn.compute.keypairs()), key=lambda r: r.name)


def keypair(conn: Conn, name: str) -> KeyRow:
    return _row(conn.compute.get_keypair(name))


def generate(conn: Conn, name: str, key_type: str) -> Generated:
    made = conn.compute.create_keypair(name=name, type=key_type)
    return Generated(_row(made), str(made.private_key or ""))


def import_key(conn: Conn, name: str, key_type: str, public_key: str) -> KeyRow:
    return _row(conn.compute.create_keypair(name=name, type=key_type, public_key=public_key))


def delete(conn: Conn, name: str) -> None:
    conn.compute.delete_keypair(name, ignore_missing=False)
