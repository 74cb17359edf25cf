"""What a cloud's state directory records of the host: its configuration, its
network database, the DHCP agent's directories and the bridges it made."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import sqlalchemy as sa
from oslo_config import cfg

from saphira.db import urls
from saphira.db.network import make_network_engine
from saphira.db.network.models import Network, Port
from saphira.db.transactions import Database
from saphira.network.dhcp.files import served_networks
from saphira.network.l2.mappings import host_bridge_mappings
from saphira.service.purge.model import Recorded

BRIDGES_NAME = "host_bridges"  # the bridges ``saphira up`` made, one per line
ADDRESSES_NAME = "host_addresses"  # "<device> <address/prefix>" it added, one per line
RECORD_NAME = "host.json"  # where ``saphira up`` put things on the host (HostRecord)


@dataclasses.dataclass(frozen=True)
class HostRecord:
    """What ``saphira up`` ran with that says where its things are: written at each
    start, as the --config-file options it was given may not be given to purge."""

    instances_path: str
    mapped_bridges: tuple[str, ...]  # the mechanism in use's (the agents')
    libvirt_uri: str

    @classmethod
    def of(cls, conf: cfg.ConfigOpts) -> HostRecord:
        return cls(
            instances_path=os.path.abspath(str(conf.instances_path)),
            mapped_bridges=tuple(sorted(host_bridge_mappings(conf).values())),
            libvirt_uri=str(conf.libvirt.connection_uri or "qemu:///system"),
        )


def write_record(conf: cfg.ConfigOpts) -> None:
    text = json.dumps(dataclasses.asdict(HostRecord.of(conf)), indent=1)
    Path(str(conf.state_path), RECORD_NAME).write_text(f"{text}\n", encoding="utf-8")


def host_record(state_dir: str, conf: cfg.ConfigOpts) -> HostRecord:
    """The record ``saphira up`` wrote, or (never started since) what ``conf`` says."""
    try:
        data = json.loads(Path(state_dir, RECORD_NAME).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return HostRecord.of(conf)
    return HostRecord(
        str(data["instances_path"]), tuple(data["mapped_bridges"]), str(data["libvirt_uri"])
    )


def read(state_dir: str, conf: cfg.ConfigOpts, record: HostRecord) -> Recorded:
    network_ids, port_ids = _network_database(conf)
    return Recorded(
        state_dir=state_dir,
        network_ids=frozenset(network_ids) | frozenset(served_networks(dhcp_root(state_dir))),
        port_ids=frozenset(port_ids),
        mapped_bridges=frozenset(record.mapped_bridges),
        created_bridges=frozenset(created_bridges(state_dir)),
        added_addresses=frozenset(added_addresses(state_dir)),
        instances_path=record.instances_path,
    )


def dhcp_root(state_dir: str) -> Path:
    return Path(state_dir, "dhcp")


def created_bridges(state_dir: str) -> list[str]:
    return _lines(state_dir, BRIDGES_NAME)


def record_bridge(state_dir: str, name: str) -> None:
    """Remember that the cloud made ``name`` (purge removes it; a found bridge it leaves)."""
    _append(state_dir, BRIDGES_NAME, name)


def added_addresses(state_dir: str) -> list[tuple[str, str]]:
    return [(device, cidr) for device, _, cidr in
            (line.partition(" ") for line in _lines(state_dir, ADDRESSES_NAME))]  # fmt: skip


def record_address(state_dir: str, device: str, cidr: str) -> None:
    """Remember that the cloud put ``cidr`` on ``device`` (purge takes it off a found bridge)."""
    _append(state_dir, ADDRESSES_NAME, f"{device} {cidr}")


def _lines(state_dir: str, name: str) -> list[str]:
    try:
        text = Path(state_dir, name).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


def _append(state_dir: str, name: str, line: str) -> None:
    if line not in _lines(state_dir, name):
        with open(os.path.join(state_dir, name), "a", encoding="utf-8") as marker:
            marker.write(f"{line}\n")


def _network_database(conf: cfg.ConfigOpts) -> tuple[list[str], list[str]]:
    """Network and port ids; none when the database was never made (no file to open)."""
    url = urls.database_url(conf, "network_database")
    if url.startswith("sqlite:///") and not os.path.exists(url.removeprefix("sqlite:///")):
        return [], []
    engine = make_network_engine(conf)
    try:
        with Database(engine).reader() as session:  # reads only
            networks = session.scalars(sa.select(Network.id)).all()
            ports = session.scalars(sa.select(Port.id)).all()
    except sa.exc.OperationalError:  # a database without the schema yet
        return [], []
    finally:
        engine.dispose()
    return list(networks), list(ports)
