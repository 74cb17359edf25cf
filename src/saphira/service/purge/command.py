"""``saphira purge --state-dir DIR [--dry-run]``: survey, plan, remove, say what.

Prints one line per thing removed (or, with ``dry_run``, that would be) and
nothing else on stdout; "nothing to remove" when the host has nothing of the
cloud's. Refuses a cloud whose ``saphira up`` still holds its lock, and
holds that lock itself while it works, so no ``saphira up`` starts there
meanwhile.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TextIO

from saphira import conf as saphira_conf
from saphira.exception import SaphiraError
from saphira.privsep import context as privileged
from saphira.service import uplock
from saphira.service.purge import recorded
from saphira.service.purge.apply import Remover
from saphira.service.purge.model import Removal
from saphira.service.purge.plan import plan
from saphira.service.purge.survey import survey
from saphira.service.statedir import CONF_NAME

NOTHING = "nothing to remove"


class PurgeRefused(SaphiraError):
    msg_fmt = "%(detail)s"


def lock(state_dir: str) -> int:
    """The state directory's lock, taken (close the descriptor to let it go)."""
    if not os.path.isdir(state_dir):
        raise PurgeRefused(detail=f"{state_dir} is not a directory")
    try:
        held = uplock.acquire(state_dir)
    except OSError as error:  # another user's lock file, a read-only directory
        raise PurgeRefused(detail=f"cannot take {uplock.path_of(state_dir)}: {error}") from None
    if isinstance(held, uplock.Held):
        detail = f"the cloud of {state_dir} is running (pid {held.pid} holds it): stop it"
        raise PurgeRefused(detail=detail)
    return held


def find(state_dir: str, config_files: Sequence[str] = ()) -> tuple[list[Removal], Remover]:
    """What of the cloud at ``state_dir`` the host has, and what removes it."""
    why = privileged.unavailable_reason()
    if why is not None:
        raise PurgeRefused(detail=f"purge needs the privileged helper: {why}")
    files = [os.path.join(state_dir, CONF_NAME), *config_files]
    conf = saphira_conf.load(
        [arg for path in files if os.path.exists(path) for arg in ("--config-file", path)],
        overrides={"DEFAULT": {"state_path": state_dir}},
    )
    record = recorded.host_record(state_dir, conf)
    wanted = recorded.read(state_dir, conf, record)
    host = survey(wanted, record.libvirt_uri)
    return plan(wanted, host), Remover(host, record.libvirt_uri)


def run(
    state_dir: str,
    *,
    dry_run: bool = False,
    config_files: Sequence[str] = (),
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """0 when everything found is gone (or, dry, listed); 1 on a refusal or a failure.

    ``out`` and ``err`` default to the streams ``sys`` has at the call.
    """
    out, err = out or sys.stdout, err or sys.stderr
    state_dir = os.path.abspath(state_dir)
    try:
        held = lock(state_dir)
    except SaphiraError as error:
        print(f"saphira purge: {error.message}", file=err)
        return 1
    try:
        removals, remover = find(state_dir, config_files)
        failed = sum(not _one(removal, remover, dry_run, out, err) for removal in removals)
    except SaphiraError as error:
        print(f"saphira purge: {error.message}", file=err)
        return 1
    finally:
        os.close(held)
    if not removals:
        print(NOTHING, file=out)
    return 1 if failed else 0


def main(state_dir: str, *, dry_run: bool, config_files: Sequence[str]) -> int:
    """The CLI's: ``run``, then the privileged helper let go if ``run`` started it."""
    had_helper = privileged.running()
    try:
        return run(state_dir, dry_run=dry_run, config_files=config_files)
    finally:
        if not had_helper:
            privileged.stop()


def _one(removal: Removal, remover: Remover, dry_run: bool, out: TextIO, err: TextIO) -> bool:
    if not dry_run:
        try:
            remover.remove(removal)
        except (SaphiraError, OSError) as error:
            print(f"saphira purge: {removal.line(done=False)}: failed: {error}", file=err)
            return False
    print(removal.line(done=not dry_run), file=out, flush=True)
    return True
