"""[spice] and [serial_console]: the SPICE html5 and serial consoles, as Nova's keys.

Both are off by default, as in Nova. Enabled, the libvirt driver gives guests
SPICE graphics (beside VNC when [vnc] is on too) or a TCP serial port, the API
hands out their URLs and ``saphira up`` runs their proxy (6082, 6083).
"""

from __future__ import annotations

from oslo_config import cfg

_SPICE: list[cfg.Opt] = [
    cfg.BoolOpt("enabled", default=False, help="Give guests SPICE graphics and serve them."),
    cfg.BoolOpt("agent_enabled", default=True, help="Let the guest's SPICE agent run."),
    cfg.URIOpt(
        "html5proxy_base_url",
        help="URL users open for a SPICE console; unset, "
        "http://[DEFAULT] my_ip:html5proxy_port (+ port_offset)/spice_auto.html.",
    ),
    cfg.HostAddressOpt(
        "server_listen", default="127.0.0.1", help="Where guest SPICE servers listen."
    ),
    cfg.HostAddressOpt(
        "server_proxyclient_address",
        default="127.0.0.1",
        help="Address the SPICE proxy uses to reach a guest's SPICE server.",
    ),
    cfg.HostAddressOpt(
        "html5proxy_host",
        default="0.0.0.0",
        help="Address saphira-spicehtml5proxy listens on (saphira up: [DEFAULT] bind_host).",
    ),
    cfg.PortOpt("html5proxy_port", default=6082, help="Port of the SPICE html5 proxy."),
    cfg.StrOpt(
        "html5_web",
        default="/usr/share/spice-html5",
        help="The spice-html5 client files the proxy serves (Debian's spice-html5 package).",
    ),
]

_SERIAL: list[cfg.Opt] = [
    cfg.BoolOpt("enabled", default=False, help="Give guests a TCP serial port and serve it."),
    cfg.StrOpt(
        "port_range",
        default="10000:20000",
        regex=r"^\d+:\d+$",
        help="Host TCP ports (first:last) guests' serial ports listen on.",
    ),
    cfg.URIOpt(
        "base_url",
        help="URL a websocket client opens for a serial console; unset, "
        "ws://[DEFAULT] my_ip:serialproxy_port (+ port_offset)/.",
    ),
    cfg.HostAddressOpt(
        "proxyclient_address",
        default="127.0.0.1",
        help="Address guests' serial ports listen on, which the serial proxy connects to.",
    ),
    cfg.HostAddressOpt(
        "serialproxy_host",
        default="0.0.0.0",
        help="Address saphira-serialproxy listens on (saphira up: [DEFAULT] bind_host).",
    ),
    cfg.PortOpt("serialproxy_port", default=6083, help="Port of the serial console proxy."),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (cfg.OptGroup("spice", help="SPICE html5 consoles."), _SPICE),
        (cfg.OptGroup("serial_console", help="Serial consoles over websocket."), _SERIAL),
    ]
