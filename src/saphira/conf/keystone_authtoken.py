"""[keystone_authtoken] and [api]: how every API validates the caller's token."""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup("keystone_authtoken", help="Token validation for the APIs.")
api_group = cfg.OptGroup("api", help="API behaviour.")

opts: list[cfg.Opt] = [
    cfg.URIOpt(
        "www_authenticate_uri", help="Identity endpoint advertised to unauthenticated clients."
    ),
    cfg.URIOpt("auth_url", help="Identity endpoint this service authenticates against."),
    cfg.ListOpt(
        "memcached_servers",
        help="Accepted for compatibility; Saphira caches validated tokens in process.",
    ),
    cfg.StrOpt("auth_type", default="password", choices=["password"], help="Auth plugin."),
    cfg.StrOpt("project_domain_name", default="Default", help="Service project's domain."),
    cfg.StrOpt("user_domain_name", default="Default", help="Service user's domain."),
    cfg.StrOpt("project_name", default="service", help="Service project."),
    cfg.StrOpt("username", help="Service user that validates tokens."),
    cfg.StrOpt("password", secret=True, help="Service user's password."),
    cfg.StrOpt("region_name", help="Region of the identity endpoint."),
    cfg.IntOpt("token_cache_time", default=300, min=0, help="Seconds a validation is cached."),
]

api_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "auth_strategy",
        default="keystone",
        choices=["keystone", "noauth2"],
        help="'keystone' validates tokens; 'noauth2' trusts headers (testing only).",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(group, opts), (api_group, api_opts)]
