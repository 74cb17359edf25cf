"""saphira-openstack-setup-compute: the join, ``--facts`` and ``--check``.

Run as root on the new compute host. Without ``--non-interactive`` every
answer not given by a flag, the answers file or a join token is asked for,
its default shown. ``main`` takes the machine (``machine.Machine``), stdin
and stdout, so tests drive it whole with fakes.
"""

from __future__ import annotations

import argparse
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from saphira.exception import SaphiraError
from saphira.join import answers as ans
from saphira.join import ending, plan, probes, screen, steps
from saphira.join.machine import Machine, guest_dir, real
from saphira.join.runner import ReadOnly

PROG = "saphira-openstack-setup-compute"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="Join this host to a Saphira "
                                "controller as a compute node (run as root).")  # fmt: skip
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--facts", action="store_true", help="print the planning facts (read-only)")
    mode.add_argument("--check", action="store_true", help="verify a joined node (read-only)")
    for question in ans.QUESTIONS:
        flag = "--" + question.name.replace("_", "-")
        p.add_argument(flag, dest=question.name, metavar="VALUE", help=question.prompt)
    p.add_argument("--answers", type=Path, metavar="FILE", help="INI file with a [join] section")
    p.add_argument("--token", metavar="T", help="a join token from saphira-manage compute-token")
    p.add_argument("--non-interactive", action="store_true", help="never prompt")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace generated files that differ (their diff is shown first)",
    )
    p.add_argument(
        "--allow-default-route-nic",
        action="store_true",
        help="allow the default-route interface into the bridge (may cut SSH off)",
    )
    p.add_argument("--root", type=Path, default=Path("/"), help="prefix of every path written")
    p.add_argument("--config-dir", type=Path, default=Path("/etc/saphira"))
    p.add_argument("--state-dir", type=Path, default=Path("/var/lib/saphira"))
    p.add_argument("--service-user", default="saphira", help="the user the services run as")
    p.add_argument(
        "--wait",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the controller to see this host (0: do not)",
    )
    p.add_argument(
        "--probe-guest",
        type=Path,
        metavar="DIR",
        help="the tiny image (vmlinux, initramfs.img) the KVM probe boots "
        "[<state-dir>/test-image]; build it with python -m saphira.guest_image DIR",
    )
    p.add_argument("--compute-driver", default="libvirt.LibvirtDriver", help=argparse.SUPPRESS)
    p.add_argument(
        "--program", action="append", default=[], metavar="NAME=PATH", help=argparse.SUPPRESS
    )  # a stand-in for a service's entry point (tests)
    return p  # fmt: skip


def _layout(args: argparse.Namespace) -> plan.Layout:
    return plan.Layout(args.root, args.config_dir, args.state_dir)


def _given(args: argparse.Namespace, machine: Machine) -> dict[str, str]:
    from_file = ans.read_file(args.answers) if args.answers else {}
    from_token: dict[str, str] = {}
    if args.token:
        from saphira.join import token

        from_token = token.redeem(machine.transport, args.token)
    flags = {name: getattr(args, name) for name in ans.NAMES}
    return ans.merged(from_file, from_token, flags)


def _screen(args: argparse.Namespace, machine: Machine, out: TextIO) -> steps.Survey:
    found = steps.survey(machine, guest_dir(_layout(args).state, args.probe_guest))
    steps.say(out, ["Planning facts (read-only):", *screen.facts_lines(*found)])
    return found


def _facts(args: argparse.Namespace, machine: Machine, out: TextIO) -> int:
    _screen(args, machine, out)
    if not args.controller:
        return 0
    url = args.identity_url or f"http://{args.controller}:5000/v3"
    reach = probes.reach(ReadOnly(machine.runner), machine.transport, args.controller, url)
    steps.say(out, screen.reach_lines(reach))
    problems = reach.problems(args.provider_nic, args.management_nic)
    steps.say(out, [f"STOP: {problem}" for problem in problems])
    return 1 if problems else 0


def _join(args: argparse.Namespace, machine: Machine, stdin: TextIO, out: TextIO) -> int:
    found, virt = _screen(args, machine, out)
    given = _given(args, machine)
    prompter = None if args.non_interactive else ans.Prompter(stdin, out)
    defaults = {"host": socket.gethostname()}
    suggested = steps.suggest_provider_nic(found)
    if suggested:
        defaults["provider_nic"] = suggested
    answers = ans.resolve(given, defaults, prompter)
    programs = dict(item.split("=", 1) for item in args.program)
    options = steps.Options(_layout(args), args.force, args.allow_default_route_nic,
                            args.service_user, args.compute_driver, programs,
                            args.probe_guest)  # fmt: skip
    if not steps.join(answers, found, virt, options, machine, out):
        out.write("ERROR: a service is not running: read its log (above), then join again\n")
        return 1
    return ending.finish(answers, machine, args.wait, out)


def main(
    argv: Sequence[str] | None = None,
    machine: Machine | None = None,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    args = build_parser().parse_args(argv)
    machine, out = machine or real(), out or sys.stdout
    try:
        if args.check:
            from saphira.join import check

            return check.run(_layout(args), machine, out)
        if args.facts:
            return _facts(args, machine, out)
        return _join(args, machine, stdin or sys.stdin, out)
    except SaphiraError as error:
        out.write(f"ERROR: {' '.join(error.message.split())}\n")
        return 1
