"""Open vSwitch: its daemons, bridges, ports and OpenFlow tables (ovs-vsctl, ovs-ofctl)."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from typing import Any

from saphira.privsep.runner import PrivsepError, run, spawn


def port_bridge(port: str) -> str | None:
    """The bridge holding ``port``, or None if OVS has no such port."""
    out = run(["ovs-vsctl", "port-to-br", port], check=False).strip()
    return out or None


def add_port(bridge: str, port: str, *, iface_id: str, mac: str, vlan: int | None) -> None:
    """Add (or update) ``port`` on ``bridge``, tagged with the Neutron port it stands for.

    ``external_ids:iface-id`` is how the L2 agent finds the port, as it
    finds the taps libvirt adds; ``vlan`` is the access tag, None for untagged.
    """
    argv = ["ovs-vsctl", "--may-exist", "add-port", bridge, port, "--", "set", "Interface", port]
    argv += [
        f"external_ids:iface-id={iface_id}",
        f"external_ids:attached-mac={mac}",
        "external_ids:iface-status=active",
    ]
    argv += (
        ["--", "set", "Port", port, f"tag={vlan}"] if vlan else ["--", "clear", "Port", port, "tag"]
    )
    run(argv)


def delete_port(port: str) -> None:
    """Idempotent, and works when the device behind the port is already gone."""
    run(["ovs-vsctl", "--if-exists", "del-port", port])


# --- Bridges, interfaces and OpenFlow tables (the L2 agent) ---------------------------

OFCTL = ("ovs-ofctl", "-O", "OpenFlow14")  # bundles need OpenFlow 1.4
VSCTL = ("ovs-vsctl", "--timeout=10")
# diff-flows exits 2 when the tables differ, which is an answer, not a failure; every
# other non-zero status still fails (with ovs-ofctl's stderr) through the runner.
_DIFF = 'ovs-ofctl -O OpenFlow14 diff-flows "$1" /dev/stdin; rc=$?; [ "$rc" -eq 2 ] || exit "$rc"'


@dataclasses.dataclass(frozen=True)
class Interface:
    """One single-interface port on a bridge, as ovs-vsctl records it."""

    name: str
    ofport: int  # -1 when OVS could not open the device, 0 while it has no number yet
    external_ids: dict[str, str]
    tag: int | None


def _ovsdb(value: Any) -> Any:
    """OVSDB's JSON encoding (["map", ...], ["set", ...], ["uuid", ...]) as Python values."""
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        kind, data = value
        if kind == "map":
            return {key: _ovsdb(item) for key, item in data}
        if kind == "set":
            return [_ovsdb(item) for item in data]
        return data  # uuid, named-uuid
    return value


def _rows(line: str) -> list[dict[str, Any]]:
    table = json.loads(line)
    return [dict(zip(table["headings"], map(_ovsdb, row), strict=True)) for row in table["data"]]


def bridge(name: str) -> dict[str, Any] | None:
    """The bridge's datapath_type and fail_mode, or None when there is no such bridge."""
    out = run([*VSCTL, "--format=json", "--columns=datapath_type,fail_mode", "find", "Bridge",
               f"name={name}"])  # fmt: skip
    rows = _rows(out)
    return rows[0] if rows else None


def add_bridge(name: str, datapath_type: str) -> None:
    """Create or update ``name``; fail_mode secure: no flow but ours ever forwards."""
    run([*VSCTL, "--may-exist", "add-br", name, "--", "set", "Bridge", name,
         f"datapath_type={datapath_type}", "fail_mode=secure"])  # fmt: skip


def delete_bridge(name: str) -> None:
    run([*VSCTL, "--if-exists", "del-br", name])


def kernel_datapath_error() -> str | None:
    """Why the kernel datapath cannot be used (ovs-dpctl's complaint), or None if it can."""
    try:
        run(["ovs-dpctl", "show"])
    except PrivsepError as error:
        return error.message
    return None


def interfaces(bridge_name: str) -> list[Interface]:
    """Every port of ``bridge_name`` that has exactly one interface (bonds are skipped)."""
    out = run([*VSCTL, "--format=json",
               "--", "--columns=ports", "find", "Bridge", f"name={bridge_name}",
               "--", "--columns=_uuid,tag,interfaces", "list", "Port",
               "--", "--columns=_uuid,name,ofport,external_ids", "list", "Interface"])  # fmt: skip
    bridges, ports, ifaces = (_rows(line) for line in out.splitlines()[:3])
    if not bridges:
        raise PrivsepError(command="ovs-vsctl", status="-", detail=f"no bridge {bridge_name}")
    members = set(_as_list(bridges[0]["ports"]))
    by_uuid = {row["_uuid"]: row for row in ifaces}
    found: list[Interface] = []
    for port in ports:
        members_ifaces = _as_list(port["interfaces"])
        if port["_uuid"] not in members or len(members_ifaces) != 1:
            continue
        iface = by_uuid[members_ifaces[0]]
        tag = port["tag"] if isinstance(port["tag"], int) else None
        ofport = iface["ofport"] if isinstance(iface["ofport"], int) else 0
        found.append(Interface(iface["name"], ofport, dict(iface["external_ids"]), tag))
    return found


def _as_list(value: Any) -> list[Any]:
    """A one-element OVSDB set is written as the bare element."""
    return value if isinstance(value, list) else [value]


def set_tags(tags: dict[str, int | None]) -> None:
    """Access VLANs of ports, in one transaction; None makes a port untagged (a trunk)."""
    argv = list(VSCTL)
    for port, tag in tags.items():
        change = (
            ["set", "Port", port, f"tag={tag}"]
            if tag is not None
            else ["clear", "Port", port, "tag"]
        )
        argv += ["--", *change]
    run(argv)


def diff_flows(bridge_name: str, flows: list[str]) -> list[str]:
    """ovs-ofctl's own comparison of the bridge's flows with ``flows``.

    Lines start with "-" (only on the bridge) or "+" (only in ``flows``); both
    sides are parsed by ovs-ofctl, so spelling differences do not count.
    """
    text = "".join(f"{flow}\n" for flow in flows)
    out = run(["sh", "-c", _DIFF, "sh", bridge_name], stdin=text)
    return [line for line in out.splitlines() if line[:1] in ("+", "-")]


def apply_flows(bridge_name: str, lines: list[str]) -> None:
    """One atomic bundle of ``add ...``/``delete ...`` lines: all of them or none."""
    run([*OFCTL, "--bundle", "add-flows", bridge_name, "-"],
        stdin="".join(f"{line}\n" for line in lines))  # fmt: skip


def dump_flows(bridge_name: str, match: str = "") -> list[str]:
    """The bridge's flows (``match`` e.g. ``cookie=0x1/-1``), without counters."""
    out = run([*OFCTL, "--no-stats", "dump-flows", bridge_name, *([match] if match else [])])
    return [line.strip() for line in out.splitlines() if line.startswith(" ")]


# --- The daemons (started by saphira.network.ovs_daemons where systemd does not) -------

LOGGING = ("-vconsole:emer", "-vsyslog:err", "-vfile:info")  # as ovs-ctl starts them


def create_db(db: str, schema: str) -> None:
    run(["ovsdb-tool", "create", db, schema])


def db_needs_conversion(db: str, schema: str) -> bool:
    return run(["ovsdb-tool", "needs-conversion", db, schema]).strip() == "yes"


def convert_db(db: str, schema: str) -> None:
    run(["ovsdb-tool", "convert", db, schema])


def start_ovsdb_server(db: str, rundir: str, logdir: str) -> None:
    """Detached; it serves the database on ``<rundir>/db.sock`` once this returns."""
    run(["ovsdb-server", db, f"--remote=punix:{rundir}/db.sock",
         "--remote=db:Open_vSwitch,Open_vSwitch,manager_options",
         f"--pidfile={rundir}/ovsdb-server.pid", "--detach",
         f"--log-file={logdir}/ovsdb-server.log", *LOGGING])  # fmt: skip


def init_db(rundir: str) -> None:
    """The Open_vSwitch root row; a no-op on a database that has it."""
    run(["ovs-vsctl", f"--db=unix:{rundir}/db.sock", "--no-wait", "init"])


def start_vswitchd(rundir: str, logdir: str) -> None:
    run(["ovs-vswitchd", f"unix:{rundir}/db.sock", f"--pidfile={rundir}/ovs-vswitchd.pid",
         "--detach", f"--log-file={logdir}/ovs-vswitchd.log", *LOGGING])  # fmt: skip


def systemctl_start(unit: str) -> None:
    run(["systemctl", "start", unit], timeout=120)


def db_answers(rundir: str) -> str | None:
    """None once ovsdb-server serves the database, else why not."""
    try:
        run(["ovs-vsctl", f"--db=unix:{rundir}/db.sock", "--timeout=2", "show"])
    except PrivsepError as error:
        return error.message
    return None


def vswitchd_version(control_socket: str) -> str | None:
    """ovs-vswitchd's version line through its control socket, None if it does not answer."""
    try:
        out = run(["ovs-appctl", "--timeout=2", "-t", control_socket, "version"])
    except PrivsepError:
        return None
    return out.splitlines()[0].strip() if out.strip() else None


def monitor_interfaces() -> subprocess.Popen[str]:
    """ovsdb-client printing a JSON line for every Interface row added, changed or deleted."""
    columns = "name,ofport,external_ids"
    return spawn(["ovsdb-client", "monitor", "Open_vSwitch", "Interface", columns, "--format=json"])
