"""What `saphira up` does before it drops root: lets the service user reach its code
and state (search-only ACL entries where a directory blocks), and asks as that user."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira import conf as saphira_conf
from saphira.service import reach, unprivileged
from saphira.virt import loader
from tests.unprivileged import account

pytestmark = [pytest.mark.integration]


@pytest.fixture
def private() -> Iterator[Path]:
    """A 0700 directory (as /root is) holding an ordinary 0755 tree, straight under /tmp."""
    top = Path(tempfile.mkdtemp(prefix="saphira-reach-"))
    (top / "checkout" / "src").mkdir(parents=True)
    (top / "checkout").chmod(0o755)
    (top / "checkout" / "src").chmod(0o755)
    try:
        yield top
    finally:
        shutil.rmtree(top)


def acl(path: Path) -> list[str]:
    done = subprocess.run(["getfacl", "-cp", str(path)], capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if line]


def test_only_the_blocking_directory_is_granted_and_only_search(private: Path) -> None:
    user = account()
    target = private / "checkout" / "src"
    assert reach.blocked(user, reach.ways([target])) == [private, private / "checkout", target]
    assert reach.ensure(user, [target]) == [private]
    assert f"user:{user.name}:--x" in acl(private)
    named = [line for line in acl(target) if line.startswith("user:") and line.split(":")[1]]
    assert named == []
    assert reach.blocked(user, reach.ways([target])) == []
    assert reach.ensure(user, [target]) == []  # the second start grants nothing


def test_nobody_else_gains_anything(private: Path) -> None:
    reach.ensure(account(), [private / "checkout"])
    nobody = pwd.getpwnam("nobody")
    other = reach.Account("nobody", nobody.pw_uid, nobody.pw_gid, (nobody.pw_gid,))
    assert reach.blocked(other, [private]) == [private]


def test_run_as_runs_as_the_account() -> None:
    user = account()
    done = reach.run_as(user, ["id", "-u"])
    assert (done.returncode, done.stdout.strip()) == (0, str(user.uid))
    assert os.geteuid() == 0  # the asking process itself kept its ids


def test_what_the_services_need_includes_the_code_and_the_state(private: Path) -> None:
    needed = reach.needed(str(private))
    assert private in needed
    assert Path(reach.__file__).parents[2] in needed or any(
        Path(reach.__file__).is_relative_to(entry) for entry in needed
    )


def test_a_libvirt_that_refuses_the_user_stops_the_drop_with_the_reason() -> None:
    """libvirtd lets the libvirt group in (the service user's), nobody else."""
    conf = saphira_conf.load([], overrides={"DEFAULT": {"compute_driver": loader.LIBVIRT}})
    unprivileged.check_libvirt(conf, account())  # saphira, in the libvirt group: opens
    nobody = pwd.getpwnam("nobody")
    outsider = reach.Account("nobody", nobody.pw_uid, nobody.pw_gid, (nobody.pw_gid,))
    with pytest.raises(unprivileged.DropError, match=r"qemu:///system refuses it \(.+\)"):
        unprivileged.check_libvirt(conf, outsider)
