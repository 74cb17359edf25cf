"""Options of the conductor and compute agents (Nova's names) and the
simulated hosts ``saphira up`` runs ([fake_driver] hosts)."""

from __future__ import annotations

from oslo_config import cfg

default_opts: list[cfg.Opt] = [
    cfg.IntOpt(
        "report_interval", default=10, min=1,
        help="Seconds between service heartbeats (and the conductor's stuck-build check).",
    ),
    cfg.IntOpt(
        "sync_power_state_interval", default=600, min=-1,
        help="Seconds between power-state reconciles; -1 disables them.",
    ),
    cfg.IntOpt(
        "update_resources_interval", default=60, min=1,
        help="Seconds between inventory reports to placement.",
    ),
    cfg.IntOpt(
        "lost_build_timeout", default=300, min=1,
        help="Seconds after which the conductor's watchdog fails a build no conductor ever "
        "placed (its build request is still there: a conductor or API was killed while it "
        "scheduled). Keep it well above rpc_response_timeout, which bounds a schedule.",
    ),
]  # fmt: skip

fake_opts: list[cfg.Opt] = [
    cfg.ListOpt(
        "hosts", default=[],
        help="Compute hosts 'saphira up' simulates in process; empty means one named after "
        "[DEFAULT] host.",
    ),
]  # fmt: skip


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [(None, default_opts), (cfg.OptGroup("fake_driver"), fake_opts)]
