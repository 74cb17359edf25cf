"""[ssl]: TLS for every API (oslo.service's group and key names).

One certificate serves every API of the process: they share one address
(my_ip) and differ only by port. cheroot's builtin SSL adapter (Python's
``ssl``) serves it; Saphira's own services then call each other over
https://127.0.0.1 and trust ``ca_file`` (``cert_file`` itself when unset).
"""

from __future__ import annotations

from oslo_config import cfg

group = cfg.OptGroup("ssl", help="TLS for the HTTP APIs.")

opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "cert_file",
        help="Certificate (PEM, the server's first, then any intermediates) "
        "every API serves; with key_file set, the APIs speak only HTTPS and the "
        "catalog, clouds.yaml and the openrc files name https:// URLs. It must "
        "be valid for my_ip and for 127.0.0.1, where the services reach each "
        "other.",
    ),
    cfg.StrOpt("key_file", help="Private key (PEM) of cert_file."),
    cfg.StrOpt(
        "ca_file",
        help="CA certificate(s) that signed cert_file: written into clouds.yaml "
        "as cacert (and OS_CACERT in the openrc files) and trusted by the "
        "services' own HTTPS clients. Unset, cert_file itself is trusted (a "
        "self-signed certificate). oslo.service uses this key to verify client "
        "certificates; Saphira asks clients for none.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(group, opts)]


def enabled(conf: cfg.ConfigOpts) -> bool:
    return bool(conf.ssl.cert_file and conf.ssl.key_file)


def scheme(conf: cfg.ConfigOpts) -> str:
    return "https" if enabled(conf) else "http"


def ca_bundle(conf: cfg.ConfigOpts) -> str | None:
    """What a client of these APIs must trust; None without TLS."""
    if not enabled(conf):
        return None
    return str(conf.ssl.ca_file or conf.ssl.cert_file)
