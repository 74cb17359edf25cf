"""Issue 13's acceptance on one test bed: a controller on PostgreSQL and a RabbitMQ node of
its own and two nodes joined by ``saphira-openstack-setup-compute`` (the real compute
agent on libvirt TCG and the real network agent on the node's eth1, under the tool's
supervisor), driven through the ``openstack`` CLI and ``saphira-manage`` as an operator
would (the waits poll through openstacksdk: a CLI run costs the guests a second of CPU).

The tests run in file order on the one bed: the nodes reach the controller, discovery
and the lists, two servers kept apart by an anti-affinity group that reach each other,
RabbitMQ restarted while servers build, issue 15's mixed load (long tier: simulated
servers on a fake compute host and real ones on the nodes under concurrent clients), a
node's network agent then its libvirt daemon killed while servers build there, then the
controller's conductor, scheduler and API killed one after another while servers build,
then its database (a PostgreSQL server of the bed's own),
one server cold-migrated and resized between the nodes with a marker on its disk, then
a node's compute agent killed: its service goes down, a new server avoids it, and its
server is evacuated. Then the join tool on the bed: a second join without ``--force``
changes nothing, ``--check`` passes on the healthy node and names the part broken (the
killed agent, the bridge without its NIC, a corrupt sudoers file), and a dead controller
address stops a join before anything is written. Last, ``down`` drops the bed's
databases and virtual host.

About 9 minutes on the 2-CPU machine (the load 1-2 of them): the bed and both joins
70-100 s, a killed agent's service_down_time (30 s on the bed), TCG boots and a
migration with the guest's shutdown.
"""

from __future__ import annotations

import dataclasses
import datetime
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from saphira.devtools.testbed.bed import Bed
from saphira.devtools.testbed.controller import FAKE_HOST, SERVICE_DOWN_TIME, SERVICES, FakeSize
from saphira.devtools.testbed.layout import PROVIDER_NIC
from saphira.devtools.testbed.state import Started, start_time
from saphira.guest_image import BOOTED, HTTP_BODY, READY, GuestImage
from saphira.join.services import NETWORK_AGENT
from tests.budget import Budget
from tests.integration.broker import PrivateBroker
from tests.integration.private_pg import PrivatePostgres
from tests.integration.testbed.bedcloud import BedCloud, probe, provider_network, qemu_io
from tests.integration.testbed.load import FAKE, REAL, Fleet, Plan, Sampler, delete_all, drive
from tests.polling import wait_for

pytestmark = pytest.mark.integration
NODES = ("node1", "node2")
MARK_AT = "900M"  # the root disk's free space: past the image's data (its FAT, SYSLINUX, kernel
# and initramfs, which grow), within the flavors' 1 GB
BRIDGE = "br-physnet1"  # the join's provider bridge on each node
BUILDS = 3  # servers building while RabbitMQ restarts
DOWN_FOR = 5.0  # seconds RabbitMQ stays stopped
LOAD = Plan(fake=100, real=2, clients=10, seconds=30)  # seconds: at least; the share sets it
KILLED = 2  # servers building on a node while one of its daemons is killed
FETCH = "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).status)"
# Send AMQP 0-9-1's protocol header; a broker answers with a method frame (type 1).
AMQP = (
    "import socket, sys; s = socket.create_connection((sys.argv[1], 5672), timeout=10); "
    "s.sendall(b'AMQP\\x00\\x00\\x09\\x01'); print(s.recv(1)[0])"
)


@pytest.fixture(scope="module")
def cloud(controlled_bed: Bed) -> BedCloud:
    return BedCloud(controlled_bed)


@pytest.fixture(scope="module")
def discovered(cloud: BedCloud) -> str:
    """``discover_hosts --verbose``'s output, the first time it runs on the bed."""
    return cloud.manage("cell_v2", "discover_hosts", "--verbose")


@dataclass(frozen=True)
class Provider:
    gateway: str  # the test's own address on the bed's provider network


@pytest.fixture(scope="module")
def provider(cloud: BedCloud, discovered: str, tiny_image: GuestImage) -> Provider:
    """The tiny image, flavors and the provider network (``bedcloud.provider_network``)."""
    return Provider(provider_network(cloud, tiny_image))


def _create(cloud: BedCloud, name: str, *extra: str) -> str:
    cloud.openstack("server", "create", "--image", "tiny", "--flavor", "tiny",
                    "--network", "prov", *extra, name)  # fmt: skip
    return str(cloud.wait_status(name, "ACTIVE")["OS-EXT-SRV-ATTR:host"])


def _address(cloud: BedCloud, name: str) -> str:
    (port,) = cloud.openstack("port", "list", "--server", name, "-f", "json")
    return str(port["Fixed IP Addresses"][0]["ip_address"])


def _serves(ip: str) -> None:
    """The guest at ``ip`` is up: its HTTP server answers (a guest boots, then serves)."""
    wait_for(f"{ip} serving", lambda: _http_ok(ip), timeout=180, interval=1)


def _http_ok(ip: str) -> bool:
    try:
        return HTTP_BODY in requests.get(f"http://{ip}/", timeout=2).text
    except requests.RequestException:
        return False


def _ready(cloud: BedCloud, name: str, times: int = 1) -> str:
    """The console log once the guest has said it is ready ``times`` times."""
    text: str = wait_for(f"{name} ready x{times}",
                         lambda: (log := cloud.console(name)).count(READY) >= times and log,
                         timeout=180, interval=1)  # fmt: skip
    return text


@pytest.fixture(scope="module")
def pair(cloud: BedCloud, provider: Provider) -> dict[str, str]:
    """a1 and a2 in one anti-affinity group: server name to fixed address."""
    group = cloud.openstack("server", "group", "create", "--policy", "anti-affinity", "apart",
                            "-f", "json")  # fmt: skip
    for name in ("a1", "a2"):  # one after the other: the group's late check is not the point
        _create(cloud, name, "--hint", f"group={group['id']}")
    return {name: _address(cloud, name) for name in ("a1", "a2")}


def test_each_node_reaches_the_controllers_identity_api_and_rabbitmq(cloud: BedCloud) -> None:
    address = cloud.addresses.controller
    for name in NODES:
        node = cloud.bed.node(name)
        assert node.run([sys.executable, "-c", FETCH, f"http://{address}:5000/v3"]).strip() == "200"
        assert node.run([sys.executable, "-c", AMQP, address]).strip() == "1"


def test_the_controller_runs_the_conductor_and_the_scheduler(cloud: BedCloud) -> None:
    services = cloud.openstack("compute", "service", "list", "-f", "json")
    states = {(row["Binary"], row["State"]) for row in services}
    assert {("nova-conductor", "up"), ("nova-scheduler", "up")} <= states


def test_discover_hosts_maps_both_nodes(discovered: str) -> None:
    for node in NODES:
        assert f"compute host '{node}'" in discovered, discovered


def test_both_hypervisors_are_up(cloud: BedCloud, discovered: str) -> None:
    hypervisors = cloud.openstack("hypervisor", "list", "-f", "json")
    assert {(h["Hypervisor Hostname"], h["State"]) for h in hypervisors} == {
        (node, "up") for node in NODES
    }


def test_each_node_has_its_l2_and_dhcp_agents_alive_with_the_mapping(cloud: BedCloud) -> None:
    agents = cloud.openstack("network", "agent", "list", "-f", "json")
    alive = {(a["Host"], a["Agent Type"]) for a in agents if a["Alive"] and a["State"]}
    assert alive >= {(n, kind) for n in NODES for kind in ("Open vSwitch agent", "DHCP agent")}
    for agent in agents:
        if agent["Agent Type"] == "Open vSwitch agent":
            shown = cloud.openstack("network", "agent", "show", agent["ID"], "-f", "json")
            assert shown["configuration"]["bridge_mappings"] == {"physnet1": "br-physnet1"}


def test_anti_affinity_servers_boot_on_both_nodes_and_reach_each_other(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    assert {cloud.host_of(name) for name in pair} == set(NODES)
    for name, ip in pair.items():
        log = _ready(cloud, name)
        assert BOOTED in log and f"SAPHIRA-GUEST: ip eth0 {ip}/" in log, log[-2000:]
        # through its node's DHCP namespace and metadata agent to the controller's API
        assert "SAPHIRA-GUEST: meta_data.json (metadata-service)" in log, log[-2000:]
    assert probe(pair["a1"], f"tcp={pair['a2']},80") == "tcp ok"
    assert probe(pair["a2"], f"ping={pair['a1']}") == "ping ok"


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None, microsecond=0)


def _stamp(value: object) -> datetime.datetime:
    """A service's or agent's heartbeat as a naive UTC time (the APIs differ in the zone)."""
    text = str(value).replace(" ", "T").removesuffix("Z")
    return datetime.datetime.fromisoformat(text).replace(tzinfo=None)


def test_builds_end_and_heartbeats_resume_after_a_rabbitmq_restart(
    cloud: BedCloud, pair: dict[str, str], bed_broker: PrivateBroker
) -> None:
    """RabbitMQ stops for a few seconds while servers build on both nodes: every build
    ends ACTIVE or ERROR with a fault, none stays in BUILD, every compute service and
    network agent beats again after the broker is back, and no service process died."""
    names = [f"r{n}" for n in range(BUILDS)]
    for name in names:
        cloud.openstack("server", "create", "--image", "tiny", "--flavor", "tiny",
                        "--network", "prov", name)  # fmt: skip
    processes = _service_processes(cloud)
    bed_broker.restart(pause=DOWN_FOR)
    back = _now()

    def settled() -> dict[str, Any] | None:
        found = {name: cloud.sdk.compute.find_server(name, ignore_missing=False) for name in names}
        return None if any(s.status == "BUILD" for s in found.values()) else found

    servers = wait_for("every build to end", settled, timeout=300, interval=1)
    for name, server in servers.items():
        assert server.status in ("ACTIVE", "ERROR"), (name, server.status)
        if server.status == "ERROR":
            assert server.fault, (name, server)
            # The hosts never went down: only the bus did (the watchdog tells them apart).
            assert "went down" not in str(server.fault), (name, server.fault)

    def beating() -> bool:
        services = list(cloud.sdk.compute.services())
        agents = list(cloud.sdk.network.agents())
        return all(s.state == "up" and _stamp(s.updated_at) > back for s in services) and all(
            a.is_alive and _stamp(a.last_heartbeat_at) > back for a in agents
        )

    wait_for("every heartbeat after the restart", beating, timeout=60, interval=1)
    assert _service_processes(cloud) == processes
    for name in names:
        cloud.openstack("server", "delete", "--wait", name)


@pytest.mark.long
def test_mixed_load_on_simulated_and_real_servers_errs_leaks_and_grows_nothing(
    cloud: BedCloud, provider: Provider, long_budget: Budget
) -> None:
    """Issue 15's load, sized to the long tier's share (``bench/load.py`` runs it whole:
    500 simulated servers, 20 real ones, 20 clients, 10 minutes): simulated servers on
    a fake compute host beside the controller and real guests on the nodes, concurrent
    clients acting on them; no action fails, the services' RSS stays flat after the
    first third of the drive (the warm-up; sampled every 2 s, the drive being short),
    and once every server is deleted nothing of theirs is left."""
    state = cloud.bed.state
    assert state is not None
    controller = cloud.bed.controller(state)
    assert controller is not None
    conn = cloud.sdk
    image, flavor = conn.image.find_image("tiny").id, conn.compute.find_flavor("tiny").id
    fleet = Fleet(image, flavor, FAKE_HOST, conn.network.find_network("prov").id)
    fleet.make_room(conn, LOAD)
    sampler = Sampler(cloud.service_pids(), every=2)
    sampler.start()
    reals = fleet.create_real(conn, REAL, LOAD.real)  # on the nodes: no fake host yet
    controller.fake_compute(state, 2, FakeSize())
    try:
        cloud.manage("cell_v2", "discover_hosts")
        label = f"controller/{FAKE_HOST}"
        sampler.watch(label, cloud.service_pids()[label])
        fakes = fleet.create_fake(conn, FAKE, LOAD.fake)
        plan = dataclasses.replace(LOAD, seconds=max(LOAD.seconds, long_budget.remaining()))
        warm = time.monotonic() + plan.seconds / 3
        tally = drive(cloud.connect, fleet, plan, fakes, reals)
        sampler.stop()
        ids, ports = delete_all(conn, reals)
    finally:  # the later tests place servers on the nodes alone
        cloud.openstack("compute", "service", "set", "--disable", FAKE_HOST, "nova-compute")
    assert not tally.failed, "\n".join([str(dict(tally.failed)), *tally.errors])
    assert sum(tally.done.values()) >= plan.clients, tally.done
    assert sampler.grown(since=warm) == {}, sampler.table(since=warm)
    assert cloud.leftovers(ids, ports) == []


def _service_processes(cloud: BedCloud) -> list[Started]:
    """The controller's services and both nodes' agents, each running (by PID and start time)."""
    state = cloud.bed.state
    assert state is not None
    found = [s for s in state.started if s.label.startswith("controller/")]
    for name in NODES:
        for service in ("saphira-compute", NETWORK_AGENT):
            pid = cloud.agent_pid(name, service)  # a restarted agent would have a new one
            found.append(Started(f"{name}/{service}", pid, start_time(pid) or 0))
    assert [p.label for p in found if not p.alive()] == []
    return found


def test_a_nodes_network_agent_then_libvirt_killed_mid_build_lose_nothing(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    """On one node, its network agent (the join's supervisor starts it again), then its
    libvirt daemon (started again as the bed started it), SIGKILLed while servers build
    there (an admin's forced host): every build ends ACTIVE or ERROR with a fault, none
    in a task state; once they are deleted the node holds none of their domains or
    taps, and neither the network service nor placement anything of theirs. A network
    deleted as the agent dies loses its namespace and dnsmasq on every node once the
    new agent runs, and no network is served twice."""
    node = cloud.host_of("a2")
    gone = _served_everywhere(cloud, "gone-net", "10.199.0.0/24")

    def kill() -> object:
        return cloud.kill_agent(node, NETWORK_AGENT, lambda: cloud.sdk.network.delete_network(gone))

    _builds_survive(cloud, node, "agent", kill)
    _builds_survive(cloud, node, "libvirt", lambda: cloud.kill_libvirt(node))
    wait_for("no DHCP leftovers", lambda: not cloud.dhcp_leftovers(), timeout=60, interval=1)
    assert all(gone not in cloud.dhcp_served(name) for name in NODES)
    alive = {(a.host, a.agent_type) for a in cloud.sdk.network.agents() if a.is_alive}
    assert {(node, "Open vSwitch agent"), (node, "DHCP agent")} <= alive


def test_the_controllers_services_killed_mid_build_lose_nothing(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    """The conductor, the scheduler and the API SIGKILLed one after another while servers
    build on a node, each started again once gone: every build ends ACTIVE or ERROR with
    a fault, none in a task state, and once deleted they leave nothing on the node, in
    the network service or in placement. (The tests after this one build, move and
    evacuate through the restarted services.)"""
    node = cloud.host_of("a1")

    def kill() -> None:
        for service in SERVICES:
            cloud.kill_controller(service)

    _builds_survive(cloud, node, "controller", kill)


def test_the_database_killed_mid_build_loses_nothing(
    cloud: BedCloud, pair: dict[str, str], bed_database: PrivatePostgres
) -> None:
    """The controller's PostgreSQL SIGKILLed while servers build on a node and started
    again on its data: every build ends ACTIVE or ERROR with a fault, none in a task
    state, and once deleted they leave nothing (every service reconnects on its own)."""
    node = cloud.host_of("a2")

    def kill() -> None:
        bed_database.kill()
        bed_database.restart()

    _builds_survive(cloud, node, "database", kill)


def _served_everywhere(cloud: BedCloud, name: str, cidr: str) -> str:
    """A project network (VLAN on physnet1) with a DHCP subnet, once every node's DHCP
    agent serves it (its namespace and one dnsmasq): its id."""
    network = cloud.sdk.network.create_network(name=name)
    cloud.sdk.network.create_subnet(network_id=network.id, cidr=cidr, ip_version=4)

    def served() -> bool:
        return all(cloud.dhcp_served(n)[network.id] == 1 and f"qdhcp-{network.id}"
                   in cloud.namespaces(n) for n in NODES)  # fmt: skip

    wait_for(f"{name} served on {', '.join(NODES)}", served, timeout=60, interval=1)
    return str(network.id)


def _builds_survive(cloud: BedCloud, node: str, label: str, kill: Callable[[], object]) -> None:
    names = [f"{label}{n}" for n in range(KILLED)]
    for name in names:
        cloud.openstack("server", "create", "--image", "tiny", "--flavor", "tiny", "--network",
                        "prov", "--availability-zone", f"nova:{node}", name)  # fmt: skip

    def building() -> bool:
        return any(s.task_state in ("networking", "spawning") for s in _found(cloud, names))

    def settled() -> list[Any] | None:
        found = _found(cloud, names)
        return found if all(s.status != "BUILD" and s.task_state is None for s in found) else None

    wait_for(f"a build on {node}", building, timeout=120, interval=0.5)
    kill()
    try:
        servers: list[Any] = wait_for(f"the builds settled ({label})", settled, timeout=300,
                                      interval=1)  # fmt: skip
    except AssertionError as error:
        states = [(s.name, s.status, s.task_state, s.compute_host) for s in _found(cloud, names)]
        stacks = cloud.stacks(node, "saphira-compute")
        conductor = cloud.controller_dir / "conductor.log"
        problems = [line for line in conductor.read_text(errors="replace").splitlines()
                    if " ERROR " in line or " WARNING " in line][-20:]  # fmt: skip
        raise AssertionError(f"{error}; servers {states}; the conductor's last problems:\n"
                             + "\n".join(problems)
                             + f"\n{node}'s compute agent:\n{stacks}") from None  # fmt: skip
    for server in servers:
        assert server.status == "ACTIVE" or server.fault, (server.name, server.status)
        assert server.compute_host == node, (server.name, server.compute_host)
    _deleted_leaving_nothing(cloud, [s.id for s in servers])


def _found(cloud: BedCloud, names: list[str]) -> list[Any]:
    return [cloud.sdk.compute.find_server(name, ignore_missing=False) for name in names]


def _deleted_leaving_nothing(cloud: BedCloud, ids: list[str]) -> None:
    ports = [p.id for i in ids for p in cloud.sdk.network.ports(device_id=i)]
    for server_id in ids:
        cloud.openstack("server", "delete", "--wait", server_id)
    assert cloud.leftovers(ids, ports) == []


def test_a_server_cold_migrates_and_resizes_to_the_other_node_with_its_data(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    o = cloud.openstack
    o("server", "delete", "--wait", "a2")  # a1 alone in its group: the other node is free
    first = cloud.host_of("a1")
    o("server", "stop", "a1")
    cloud.wait_status("a1", "SHUTOFF")
    written = qemu_io(cloud.disk("a1"), f"write -P 0x5a {MARK_AT} 64k")
    assert "wrote 65536/65536" in written, written

    o("server", "migrate", "a1")
    cloud.wait_status("a1", "VERIFY_RESIZE")
    o("server", "migrate", "confirm", "a1")
    moved = cloud.wait_status("a1", "SHUTOFF")
    assert moved["OS-EXT-SRV-ATTR:host"] != first
    assert qemu_io(cloud.disk("a1"), f"read -P 0x5a {MARK_AT} 64k").startswith("read 65536")
    o("server", "start", "a1")
    cloud.wait_status("a1", "ACTIVE")
    _serves(pair["a1"])

    o("server", "resize", "--flavor", "tiny2", "a1")
    cloud.wait_status("a1", "VERIFY_RESIZE")
    o("server", "resize", "confirm", "a1")
    resized = cloud.wait_status("a1", "ACTIVE")
    assert resized["OS-EXT-SRV-ATTR:host"] == first
    assert "tiny2" in str(resized["flavor"])
    assert qemu_io(cloud.disk("a1"), f"read -P 0x5a {MARK_AT} 64k").startswith("read 65536")
    _serves(pair["a1"])


def test_a_killed_compute_agent_goes_down_and_new_servers_avoid_its_node(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    dead = cloud.host_of("a1")
    (alive,) = set(NODES) - {dead}
    cloud.kill_compute(dead)

    def state() -> str:
        (service,) = cloud.sdk.compute.services(host=dead, binary="nova-compute")
        return str(service.state)

    wait_for(f"{dead}'s compute service down", lambda: state() == "down",
             timeout=SERVICE_DOWN_TIME + 30, interval=1)  # fmt: skip
    assert _create(cloud, "late") == alive


def test_evacuate_rebuilds_the_dead_nodes_server_on_the_other_node(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    dead = cloud.host_of("a1")
    # Not --wait: the client compares the lower-cased status with "ACTIVE" and never ends.
    cloud.openstack("server", "evacuate", "a1")

    def rebuilt() -> bool:
        shown = cloud.sdk.compute.find_server("a1", ignore_missing=False)
        assert shown.status != "ERROR", shown.fault
        return bool(shown.status == "ACTIVE" and shown.compute_host != dead)

    wait_for("a1 rebuilt on the other node", rebuilt, timeout=300, interval=1)
    # The console is the new node's (the old guest still runs on the dead node: only its
    # agent died, so an answer at the address could be the old guest's).
    log = _ready(cloud, "a1")
    assert BOOTED in log and f"SAPHIRA-GUEST: ip eth0 {pair['a1']}/" in log, log[-2000:]


def test_a_second_join_without_force_changes_nothing(cloud: BedCloud, pair: dict[str, str]) -> None:
    """The node that now holds a1: same files (bytes and times), same agents."""
    node = cloud.bed.node(cloud.host_of("a1"))
    files = sorted(p for p in node.config_dir.rglob("*") if p.is_file())
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    agents = {s: cloud.agent_pid(node.name, s) for s in ("saphira-compute", NETWORK_AGENT)}
    code, out = cloud.join_again(node.name)
    assert code == 0 and f"The controller sees {node.name}" in out, out
    assert sorted(p for p in node.config_dir.rglob("*") if p.is_file()) == files
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before
    assert {s: cloud.agent_pid(node.name, s) for s in agents} == agents


def test_check_passes_on_a_healthy_node_and_names_the_part_broken(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    healthy = cloud.host_of("a1")
    (dead,) = set(NODES) - {healthy}
    code, out = cloud.check(healthy)
    assert code == 0 and "FAIL" not in out, out
    code, out = cloud.check(dead)  # its compute agent was killed (and stays dead)
    assert code == 1 and "FAIL saphira-compute: not running" in out, out

    node = cloud.bed.node(healthy)
    node.run(["ovs-vsctl", "del-port", BRIDGE, PROVIDER_NIC])
    try:
        code, out = cloud.check(healthy)
        failed = next(line for line in out.splitlines() if line.startswith("FAIL"))
        assert code == 1 and failed.startswith(f"FAIL bridge: {BRIDGE} has "), out
        assert failed.endswith(f", not {PROVIDER_NIC}") and "PortBindingFailed" in out, out
    finally:
        node.run(["ovs-vsctl", "--may-exist", "add-port", BRIDGE, PROVIDER_NIC])

    sudoers = node.directory / "etc-sudoers.d" / "saphira-compute"  # its /etc/sudoers.d
    rule = sudoers.read_text()
    sudoers.write_text("saphira ALL = (root NOPASSWD\n")
    try:
        code, out = cloud.check(healthy)
        assert code == 1 and "FAIL sudoers: visudo -c" in out, out
    finally:
        sudoers.write_text(rule)
    code, out = cloud.check(healthy)
    assert code == 0, out


def test_a_dead_controller_stops_the_join_before_anything_is_written(
    cloud: BedCloud, pair: dict[str, str]
) -> None:
    """An address of the management network where no controller answers."""
    node = cloud.bed.node(NODES[0])
    sudoers = node.directory / "etc-sudoers.d" / "saphira-compute"
    kept = sudoers.stat().st_mtime_ns
    dead = f"10.{cloud.addresses.octet}.0.99"
    config, state = node.directory / "dead-etc", node.directory / "dead-state"
    code, out = cloud.setup_compute(
        node.name, "--non-interactive", "--controller", dead, "--provider-nic", PROVIDER_NIC,
        "--bridge", "br-dead", "--host", "dead", "--nova-password", "n",
        "--placement-password", "p", "--neutron-password", "q",
        "--config-dir", str(config), "--state-dir", str(state),
    )  # fmt: skip
    assert code == 1 and f"GET http://{dead}:5000/v3 answered 000" in out, out
    assert "nothing was written" in out, out
    assert not config.exists() and not state.exists()
    assert sudoers.stat().st_mtime_ns == kept
    assert "br-dead" not in node.run(["ovs-vsctl", "list-br"]).split()


def _databases(base: str) -> list[str]:
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    engine = sa.create_engine(make_url(base).set(database="postgres"))
    try:
        with engine.connect() as conn:
            return [str(row[0]) for row in conn.execute(sa.text("SELECT datname FROM pg_database"))]
    finally:
        engine.dispose()


def test_down_drops_the_beds_databases_and_virtual_host(
    cloud: BedCloud, bed_broker: PrivateBroker, bed_database: PrivatePostgres
) -> None:
    """Last: the bed is down afterwards (the fixture's own down then finds nothing)."""
    prefix = f"saphira_tb_{cloud.bed.layout.bed}"
    base = bed_database.url
    assert any(name.startswith(prefix) for name in _databases(base))
    assert cloud.bed.down() == []
    assert [name for name in _databases(base) if name.startswith(prefix)] == []
    vhosts = subprocess.run([*bed_broker.ctl, "-q", "list_vhosts", "name"],
                            capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    assert prefix not in vhosts.stdout.split()
