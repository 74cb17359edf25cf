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
        "login_failures_per_source",
        default=10,
        min=0,
        help="Failed password logins one client address may make in "
        "login_failure_window seconds; further password logins from it are "
        "refused with 429 (and Retry-After) before any password is checked. "
        "Counted in the memory of each identity API process (a deployment "
        "with N identity processes admits up to N times this); the per-user "
        "limit, [security_compliance] lockout_failure_attempts, is in the "
        "database and shared. The address is the connection's peer: behind a "
        "proxy, every client shares the proxy's. 0 disables.",
    ),
    cfg.IntOpt(
        "login_failure_window",
        default=60,
        min=1,
        help="Seconds over which login_failures_per_source counts failures.",
    ),
    cfg.IntOpt(
        "login_sources_tracked",
        default=10000,
        min=1,
        help="Client addresses whose failed logins are remembered; beyond "
        "this the address that failed least recently is forgotten, so the "
        "table stays bounded whatever a flood of addresses does.",
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
