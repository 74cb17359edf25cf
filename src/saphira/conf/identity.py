"""[identity]: the Keystone-compatible service Saphira embeds."""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup("identity", help="The identity service (Keystone v3 API).")

opts: list[cfg.Opt] = [
    cfg.PortOpt("port", default=5000, help="Port of the identity API (before port_offset)."),
    cfg.IntOpt("token_expiration", default=3600, min=60, help="Seconds a token stays valid."),
    cfg.IntOpt(
        "allow_expired_window",
        default=172800,
        min=0,
        help="Seconds after its expiry a token is still accepted from a service that sends "
        "it with a valid token of its own (X-Service-Token, with the service or admin role), "
        "so work a user started (a build, an attach) can finish; Keystone's [token] "
        "allow_expired_window. Nobody else can use an expired token.",
    ),
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
