"""``saphira up``: run the all-in-one cloud in the foreground; ``saphira purge``: take
a stopped one away from the host."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from saphira.exception import ConfigError, SaphiraError
from saphira.service import logs, unprivileged, uplock
from saphira.service import up as service_up
from saphira.service.purge import command as purge
from saphira.verify import command as verify

DEFAULT_USER = "saphira"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="saphira", description="Saphira, a compact cloud.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    up = commands.add_parser("up", help="run the all-in-one cloud in the foreground")
    up.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where every file of the cloud lives (default: /var/lib/saphira for root, "
        "$XDG_DATA_HOME/saphira or ~/.local/share/saphira otherwise)",
    )
    up.add_argument(
        "--config-file",
        metavar="FILE",
        action="append",
        default=[],
        help="nova.conf-style file layered over the defaults; repeatable, later files win",
    )
    up.add_argument(
        "--port-offset", type=int, metavar="N", help="add N to every port the cloud listens on"
    )
    up.add_argument("--bind-host", metavar="HOST", help="address the APIs listen on")
    up.add_argument(
        "--compute-driver",
        metavar="NAME",
        help="virt driver of the compute host: auto (default), libvirt.LibvirtDriver or "
        "fake.FakeDriver",
    )
    up.add_argument(
        "--test-image",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="build and register the tiny test image saphira-tiny and the flavor "
        "saphira.tiny when they are missing (default: yes)",
    )
    up.add_argument(
        "--provider-network",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run this host's network agents and make a shared provider network on a bridge "
        "of its own ([provider], [ovs] bridge_mappings), where Open vSwitch and root allow "
        "(default: yes)",
    )
    up.add_argument(
        "--user",
        metavar="NAME",
        help="started as root: run everything but the privileged helper as this system user, "
        f"created if missing (default: {DEFAULT_USER}); the state directory becomes its own. "
        "--user root keeps every service root",
    )
    _purge_parser(commands)
    verify.add_parser(commands)
    return parser


def _purge_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    purge_cmd = commands.add_parser(
        "purge",
        help="remove from this host everything a stopped cloud made: guests and their disks, "
        "DHCP servers and namespaces, taps, the bridges it made, flows and nftables tables",
    )
    purge_cmd.add_argument("--state-dir", metavar="DIR", required=True, help="the cloud's")
    purge_cmd.add_argument(
        "--config-file", metavar="FILE", action="append", default=[],
        help="as given to saphira up (only its database connections are read from them)",
    )  # fmt: skip
    purge_cmd.add_argument(
        "--dry-run", action="store_true", help="print what would be removed, remove nothing"
    )


def service_user(asked: str | None) -> str | None:
    """Who runs the services: nobody else than the caller unless started as root."""
    if asked is None:
        return DEFAULT_USER if os.geteuid() == 0 else None
    if asked == "root":
        print("saphira up: --user root: every service runs as root", file=sys.stderr, flush=True)
        return None
    return asked


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "purge":
        return purge.main(args.state_dir, dry_run=args.dry_run, config_files=args.config_file)
    if args.command == "verify":
        return verify.main(args)
    if args.command != "up":
        parser.print_help(sys.stderr)
        return 2
    try:
        state_dir = service_up.choose_state_dir(args.state_dir, args.config_file)
        conf, written = service_up.configure(
            state_dir,
            args.config_file,
            port_offset=args.port_offset,
            bind_host=args.bind_host,
            compute_driver=args.compute_driver,
        )
        logs.setup(conf)
    except ConfigError as error:
        print(f"saphira up: configuration error: {error.message}", file=sys.stderr)
        return 2
    except OSError as error:  # the state directory or the log file cannot be created
        print(f"saphira up: error: {error}", file=sys.stderr)
        return 2
    try:
        lock = uplock.acquire(state_dir)  # held (open) until this process ends
    except OSError as error:
        print(f"saphira up: error: {error}", file=sys.stderr)
        return 2
    if isinstance(lock, uplock.Held):
        print(f"saphira up: error: {state_dir} is in use (pid {lock.pid} holds {lock.path})",
              file=sys.stderr)  # fmt: skip
        return 1
    if written:
        print(f"saphira up: first start: wrote {written}", flush=True)
    os.umask(0o077)  # every file of the state directory is private (see statedir.ensure_dir)
    user = service_user(args.user)
    if user is not None:
        try:
            unprivileged.become(user, conf)
        except SaphiraError as error:
            print(f"saphira up: error: {error.message}", file=sys.stderr)
            return 1
    extras = service_up.Extras(args.test_image, args.provider_network)
    return service_up.serve(conf, extras=extras)


if __name__ == "__main__":
    sys.exit(main())
