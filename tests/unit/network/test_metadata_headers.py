"""What the metadata path lets a guest send, and the signature the metadata API checks."""

from __future__ import annotations

from saphira.network.metadata import headers

FORGED = [
    ("X-Instance-ID", "someone-else"),
    ("x-instance-id-signature", "f" * 64),
    ("X-Tenant-ID", "other-project"),
    ("X-Forwarded-For", "10.0.0.99"),
    ("X-Forwarded-Host", "evil"),
    ("Forwarded", "for=10.0.0.99"),
    ("X-Real-IP", "10.0.0.99"),
    ("X-Neutron-Network-ID", "other-network"),
    ("X-Neutron-Router-ID", "r"),
    ("X-Saphira-Anything", "1"),
    (" X-Instance-ID ", "padded"),
]


def test_every_header_the_proxy_path_owns_is_stripped() -> None:
    kept = headers.from_guest([*FORGED, ("Accept", "application/json")])
    assert kept == [("Accept", "application/json")]


def test_hop_by_hop_headers_and_those_connection_names_are_stripped() -> None:
    sent = [
        ("Connection", "close, X-Secret"),
        ("X-Secret", "1"),
        ("Keep-Alive", "timeout=5"),
        ("Transfer-Encoding", "chunked"),
        ("Upgrade", "websocket"),
        ("Proxy-Authorization", "Basic x"),
        ("Host", "169.254.169.254"),
        ("Content-Length", "9"),
        ("User-Agent", "cloud-init"),
    ]
    assert headers.from_guest(sent) == [("User-Agent", "cloud-init")]


def test_the_signature_is_novas_hmac_sha256_of_the_instance_id() -> None:
    # printf %s i-0123 | openssl dgst -sha256 -hmac s3cret
    expected = "0f9e9da9ad11c6261e00cb4b65395cd3ea62e257b28a87a8a94ff685e04d61a5"
    assert headers.sign_instance_id("s3cret", "i-0123") == expected
    assert headers.sign_instance_id("other", "i-0123") != expected


def test_the_metadata_api_gets_exactly_the_four_headers_of_novas_contract() -> None:
    sent = headers.to_metadata_api("i-0123", "project-a", "10.0.0.5", "s3cret")
    assert sent == {
        "X-Forwarded-For": "10.0.0.5",
        "X-Instance-ID": "i-0123",
        "X-Tenant-ID": "project-a",
        "X-Instance-ID-Signature": headers.sign_instance_id("s3cret", "i-0123"),
    }
