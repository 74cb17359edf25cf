"""[identity]: the Keystone-compatible service Saphira embeds."""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup("identity", help="The identity service (Keystone v3 API).")

opts: list[cfg.Opt] = [
    cfg.PortOpt("port", default=5000, help="Port of the identity API (before port_offset)."),
    cfg.IntOpt("token_expiration", default=3600, min=60, help="Seconds a token stays valid."),
    cfg.StrOpt(
        "key_repository",
        default="$state_path/fernet-keys",
        help="Directory of the token encryption keys (0600 files, rotated by "
        "'saphira-manage fernet_rotate').",
    ),
    cfg.IntOpt("max_active_keys", default=3, min=1, help="Keys kept after rotation."),
    cfg.IntOpt(
        "password_hash_cost",
        default=14,
        min=4,
        max=20,
        help="log2 of the scrypt work factor used to hash passwords.",
    ),
    cfg.IntOpt(
        "max_request_body_size",
        default=114688,
        min=1024,
        help="Largest request body the identity API accepts, in bytes.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(group, opts)]
