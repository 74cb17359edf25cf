#!/usr/bin/env python3
"""What saphira-openstack-setup-compute costs on this host, run by run.

As root: a veth pair as the provider NIC, a stand-in controller on 127.0.0.1
(saphira.devtools.controller_stub) and stand-in agents (a shell loop: the real
ones need a real controller), so the figures are the tool's own: ``--facts``
(no KVM probe guest here: the probe ends at once), a first join into a fresh
temporary root (files, visudo, the OVS bridge, the supervisor, the agents
active, the controller's view), a second join (nothing to change) and
``--check``. Every run removes its bridge, link, supervisor and root.
Prints figures; asserts nothing.

    .venv/bin/python bench/join.py [--runs N]
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from saphira.devtools.controller_stub import Stub, serving
from saphira.join import supervisor
from saphira.join.cli import main


def _timed(step: Callable[[], int]) -> float:
    start = time.perf_counter()
    code = step()
    took = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"a step exited with {code}")
    return took


def _run(index: int, stub: Stub, figures: dict[str, list[float]]) -> None:
    root = Path(tempfile.mkdtemp(prefix="saphira-bench-join-"))
    nic, peer, bridge = (
        f"bj{os.getpid() % 10000}{index}a",
        f"bj{os.getpid() % 10000}{index}b",
        "br-benchjoin",
    )
    standin = root / "standin"
    standin.write_text("#!/bin/sh\nwhile :; do sleep 1; done\n")
    standin.chmod(0o755)
    subprocess.run(["ip", "link", "add", nic, "type", "veth", "peer", "name", peer], check=True)
    stub.mappings = {"physnet1": bridge}
    node = root / "node"
    flags = [
        "--root", str(node), "--non-interactive", "--controller", "127.0.0.1",
        "--provider-nic", nic, "--bridge", bridge, "--identity-url", f"{stub.url}/v3",
        "--nova-password", "n", "--placement-password", "p", "--neutron-password", "q",
        "--host", stub.host, "--service-user", "root", "--wait", "30",
        "--program", f"saphira-compute={standin}", "--program", f"saphira-network-agent={standin}",
    ]  # fmt: skip

    def run(*argv: str) -> Callable[[], int]:
        return lambda: main(list(argv), stdin=io.StringIO(""), out=io.StringIO())

    try:
        figures["--facts"].append(_timed(run("--facts", "--controller", "127.0.0.1",
                                             "--identity-url", f"{stub.url}/v3")))  # fmt: skip
        figures["first join"].append(_timed(run(*flags)))
        figures["second join"].append(_timed(run(*flags)))
        figures["--check"].append(_timed(run("--root", str(node), "--check")))
    finally:
        supervisor.stop_running(node / "var/lib/saphira")
        subprocess.run(["ovs-vsctl", "--if-exists", "del-br", bridge], check=False)
        subprocess.run(["ip", "link", "del", nic], check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    figures: dict[str, list[float]] = {k: [] for k in ("--facts", "first join", "second join",
                                                        "--check")}  # fmt: skip
    with serving(Stub(socket.gethostname())) as stub:
        for index in range(args.runs):
            _run(index, stub, figures)
    for name, values in figures.items():
        print(f"{name:12s} p50 {statistics.median(values):.2f} s, max {max(values):.2f} s "
              f"({len(values)} runs)")  # fmt: skip


if __name__ == "__main__":
    main_bench()
