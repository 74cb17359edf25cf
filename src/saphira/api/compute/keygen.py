"""Key pairs with ``cryptography``: generate RSA (ssh) or a self-signed x509
certificate, validate imported keys, and fingerprint them as Nova does (MD5 of
the ssh key blob; SHA-1 of an x509 certificate's DER)."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
from dataclasses import dataclass

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from saphira.exception import BadRequest


@dataclass(frozen=True)
class KeyMaterial:
    public_key: str
    fingerprint: str
    private_key: str | None = None


def _colons(digest: bytes) -> str:
    return ":".join(f"{b:02x}" for b in digest)


def ssh_fingerprint(public_key: str) -> str:
    """MD5 of the key blob; 400 'Keypair data is invalid' for anything unparsable."""
    try:
        serialization.load_ssh_public_key(public_key.strip().encode())
        blob = base64.b64decode(public_key.strip().split()[1])
    except (ValueError, IndexError, UnsupportedAlgorithm):
        raise BadRequest("Keypair data is invalid: failed to generate fingerprint") from None
    return _colons(hashlib.md5(blob, usedforsecurity=False).digest())


def x509_fingerprint(pem: str) -> str:
    try:
        cert = x509.load_pem_x509_certificate(pem.encode())
    except ValueError:
        raise BadRequest("Keypair data is invalid: failed to generate fingerprint") from None
    return _colons(cert.fingerprint(hashes.SHA1()))


def _private_pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()


def generate_ssh(name: str) -> KeyMaterial:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    text = f"{public.decode()} Generated-by-Saphira"
    return KeyMaterial(text, ssh_fingerprint(text), _private_pem(key))


def generate_x509(name: str) -> KeyMaterial:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=3650))
        .sign(key, hashes.SHA256())
    )
    pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    return KeyMaterial(pem, x509_fingerprint(pem), _private_pem(key))


def material(name: str, key_type: str, public_key: str | None) -> KeyMaterial:
    """Imported when a public key is given, generated otherwise."""
    if public_key is None:
        return generate_x509(name) if key_type == "x509" else generate_ssh(name)
    if key_type == "x509":
        return KeyMaterial(public_key, x509_fingerprint(public_key))
    return KeyMaterial(public_key, ssh_fingerprint(public_key))
