"""Open vSwitch: its daemons, bridges, ports and OpenFlow tables (ovs-vsctl, ovs-ofctl).

Helper entry points; the ones that return ovs-vsctl's JSON have a parsing
wrapper here (``bridge``, ``interfaces``), run in the service.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from saphira.privsep import validate
from saphira.privsep.context import entrypoint
from saphira.privsep.runner import PrivsepError, run

UNITS = ("openvswitch-switch.service", "openvswitch.service")  # Debian/Ubuntu, then Red Hat
DATAPATH_TYPES = ("system", "netdev")
DEAD_VLAN = 4095  # the tag of isolated ports (Neutron's DEAD_VLAN_TAG)


@entrypoint
def port_bridge(port: str) -> str | None:
    """The bridge holding ``port``, or None if OVS has no such port."""
    out = run(["ovs-vsctl", "port-to-br", validate.device(port)], check=False).strip()
    return out or None


@entrypoint
def add_port(bridge: str, port: str, *, iface_id: str, mac: str, vlan: int | None) -> None:
    """Add (or update) ``port`` on ``bridge``, tagged with the Neutron port it stands for.

    ``external_ids:iface-id`` is how the L2 agent finds the port, as it
    finds the taps libvirt adds; ``vlan`` is the access tag, None for untagged.
    """
    bridge, port = validate.device(bridge), validate.device(port)
    vlan = None if vlan is None else validate.integer(vlan, 0, DEAD_VLAN, "VLAN id")
    argv = ["ovs-vsctl", "--may-exist", "add-port", bridge, port, "--", "set", "Interface", port]
    argv += [
        f"external_ids:iface-id={validate.identifier(iface_id)}",
        f"external_ids:attached-mac={validate.mac(mac)}",
        "external_ids:iface-status=active",
    ]
    argv += (
        ["--", "set", "Port", port, f"tag={vlan}"] if vlan else ["--", "clear", "Port", port, "tag"]
    )
    run(argv)


@entrypoint
def delete_port(port: str) -> None:
    """Idempotent, and works when the device behind the port is already gone."""
    run(["ovs-vsctl", "--if-exists", "del-port", validate.device(port)])


# --- Bridges, interfaces and OpenFlow tables (the L2 agent) ---------------------------

OFCTL = ("ovs-ofctl", "-O", "OpenFlow14")  # bundles need OpenFlow 1.4
VSCTL = ("ovs-vsctl", "--timeout=10")


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
    rows = _rows(_find_bridge(name))
    return rows[0] if rows else None


@entrypoint
def _find_bridge(name: str) -> str:
    return run([*VSCTL, "--format=json", "--columns=datapath_type,fail_mode", "find", "Bridge",
                f"name={validate.device(name)}"])  # fmt: skip


@entrypoint
def add_bridge(name: str, datapath_type: str) -> None:
    """Create or update ``name``; fail_mode secure: no flow but ours ever forwards."""
    name = validate.device(name)
    if datapath_type not in DATAPATH_TYPES:
        raise validate.InvalidArgument(detail=f"datapath type {datapath_type!r}")
    run([*VSCTL, "--may-exist", "add-br", name, "--", "set", "Bridge", name,
         f"datapath_type={datapath_type}", "fail_mode=secure"])  # fmt: skip


@entrypoint
def delete_bridge(name: str) -> None:
    run([*VSCTL, "--if-exists", "del-br", validate.device(name)])


@entrypoint
def kernel_datapath_error() -> str | None:
    """Why the kernel datapath cannot be used (ovs-dpctl's complaint), or None if it can."""
    try:
        run(["ovs-dpctl", "show"])
    except PrivsepError as error:
        return error.message
    return None


def interfaces(bridge_name: str) -> list[Interface]:
    """Every port of ``bridge_name`` that has exactly one interface (bonds are skipped)."""
    out = _list_interfaces(bridge_name)
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


@entrypoint
def _list_interfaces(bridge_name: str) -> str:
    return run([*VSCTL, "--format=json",
                "--", "--columns=ports", "find", "Bridge", f"name={validate.device(bridge_name)}",
                "--", "--columns=_uuid,tag,interfaces", "list", "Port",
                "--", "--columns=_uuid,name,ofport,external_ids", "list", "Interface"])  # fmt: skip


def _as_list(value: Any) -> list[Any]:
    """A one-element OVSDB set is written as the bare element."""
    return value if isinstance(value, list) else [value]


@entrypoint
def set_tags(tags: dict[str, int | None]) -> None:
    """Access VLANs of ports, in one transaction; None makes a port untagged (a trunk)."""
    argv = list(VSCTL)
    for port, tag in tags.items():
        port = validate.device(port)
        tag = None if tag is None else validate.integer(tag, 0, DEAD_VLAN, "VLAN id")
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
    out = _diff_flows(bridge_name, flows)
    return [line for line in out.splitlines() if line[:1] in ("+", "-")]


@entrypoint
def _diff_flows(bridge_name: str, flows: list[str]) -> str:
    text = "".join(f"{validate.flow_text(flow)}\n" for flow in flows)
    # diff-flows exits 2 when the tables differ: an answer, not a failure.
    argv = [*OFCTL, "diff-flows", validate.device(bridge_name), "/dev/stdin"]
    return run(argv, stdin=text, accept=(0, 2))


@entrypoint
def apply_flows(bridge_name: str, lines: list[str]) -> None:
    """One atomic bundle of ``add ...``/``delete ...`` lines: all of them or none."""
    run([*OFCTL, "--bundle", "add-flows", validate.device(bridge_name), "-"],
        stdin="".join(f"{validate.flow_text(line)}\n" for line in lines))  # fmt: skip


def dump_flows(bridge_name: str, match: str = "") -> list[str]:
    """The bridge's flows (``match`` e.g. ``cookie=0x1/-1``), without counters."""
    out = _dump_flows(bridge_name, match)
    return [line.strip() for line in out.splitlines() if line.startswith(" ")]


@entrypoint
def _dump_flows(bridge_name: str, match: str) -> str:
    match_args = [validate.flow_text(match)] if match else []
    return run([*OFCTL, "--no-stats", "dump-flows", validate.device(bridge_name), *match_args])


# --- The daemons (started by saphira.network.ovs_daemons where systemd does not) -------

LOGGING = ("-vconsole:emer", "-vsyslog:err", "-vfile:info")  # as ovs-ctl starts them


_path = validate.path


@entrypoint
def create_db(db: str, schema: str) -> None:
    run(["ovsdb-tool", "create", _path(db), _path(schema)])


@entrypoint
def db_needs_conversion(db: str, schema: str) -> bool:
    return run(["ovsdb-tool", "needs-conversion", _path(db), _path(schema)]).strip() == "yes"


@entrypoint
def convert_db(db: str, schema: str) -> None:
    run(["ovsdb-tool", "convert", _path(db), _path(schema)])


@entrypoint
def start_ovsdb_server(db: str, rundir: str, logdir: str) -> None:
    """Detached; it serves the database on ``<rundir>/db.sock`` once this returns."""
    db, rundir, logdir = _path(db), _path(rundir), _path(logdir)
    run(["ovsdb-server", db, f"--remote=punix:{rundir}/db.sock",
         "--remote=db:Open_vSwitch,Open_vSwitch,manager_options",
         f"--pidfile={rundir}/ovsdb-server.pid", "--detach",
         f"--log-file={logdir}/ovsdb-server.log", *LOGGING])  # fmt: skip


@entrypoint
def init_db(rundir: str) -> None:
    """The Open_vSwitch root row; a no-op on a database that has it."""
    run(["ovs-vsctl", f"--db=unix:{_path(rundir)}/db.sock", "--no-wait", "init"])


@entrypoint
def start_vswitchd(rundir: str, logdir: str) -> None:
    rundir, logdir = _path(rundir), _path(logdir)
    run(["ovs-vswitchd", f"unix:{rundir}/db.sock", f"--pidfile={rundir}/ovs-vswitchd.pid",
         "--detach", f"--log-file={logdir}/ovs-vswitchd.log", *LOGGING])  # fmt: skip


@entrypoint
def systemctl_start(unit: str) -> None:
    if unit not in UNITS:
        raise validate.InvalidArgument(detail=f"unit {unit!r}")
    run(["systemctl", "start", unit], timeout=120)


@entrypoint
def db_answers(rundir: str) -> str | None:
    """None once ovsdb-server serves the database, else why not."""
    try:
        run(["ovs-vsctl", f"--db=unix:{_path(rundir)}/db.sock", "--timeout=2", "show"])
    except PrivsepError as error:
        return error.message
    return None


@entrypoint
def vswitchd_version(control_socket: str) -> str | None:
    """ovs-vswitchd's version line through its control socket, None if it does not answer."""
    try:
        out = run(["ovs-appctl", "--timeout=2", "-t", _path(control_socket), "version"])
    except PrivsepError:
        return None
    return out.splitlines()[0].strip() if out.strip() else None
