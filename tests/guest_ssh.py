"""SSH into the tiny guest from a test: a fresh key pair, a root login, a command."""

from __future__ import annotations

import io
from dataclasses import dataclass

import paramiko
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

USER = "root"  # the tiny image's one user


@dataclass(frozen=True)
class KeyPair:
    public: str  # one authorized_keys line
    private: str  # OpenSSH private key file text

    def paramiko(self) -> paramiko.PKey:
        if self.public.startswith("ecdsa-"):
            return paramiko.ECDSAKey.from_private_key(io.StringIO(self.private))
        return paramiko.Ed25519Key.from_private_key(io.StringIO(self.private))


def new_key_pair(comment: str = "test@saphira", ecdsa: bool = False) -> KeyPair:
    """An ed25519 pair, or (``ecdsa``) a NIST P-384 one, the kind tempest makes."""
    key = ec.generate_private_key(ec.SECP384R1()) if ecdsa else Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                serialization.NoEncryption())  # fmt: skip
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                           serialization.PublicFormat.OpenSSH)  # fmt: skip
    return KeyPair(f"{public.decode()} {comment}", private.decode())


def connect(host: str, port: int, key: paramiko.PKey | None,
            password: str | None = None) -> paramiko.SSHClient:  # fmt: skip
    """A root session, the host key taken as offered (the guest makes a new one each boot)."""
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(host, port=port, username=USER, pkey=key, password=password, timeout=30,
                   banner_timeout=30, auth_timeout=30, allow_agent=False,
                   look_for_keys=False)  # fmt: skip
    return client


def run(client: paramiko.SSHClient, command: str) -> tuple[int, str]:
    """(exit status, standard output) of ``command`` in the guest."""
    _, stdout, _ = client.exec_command(command, timeout=30)
    output = stdout.read().decode()
    return stdout.channel.recv_exit_status(), output
