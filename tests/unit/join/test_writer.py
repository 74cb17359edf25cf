"""Files under --root: kept unless --force, never rewritten unchanged, --force's diff."""

from __future__ import annotations

from pathlib import Path

from saphira.join import writer
from saphira.join.writer import Planned


def test_write_once_then_unchanged_then_kept_then_replaced_with_a_diff(tmp_path: Path) -> None:
    path = writer.under(tmp_path, Path("/etc/saphira/saphira.conf"))
    assert path == tmp_path / "etc/saphira/saphira.conf"
    first = Planned(path, "[DEFAULT]\nhost = a\npassword = s3cret\n")
    assert writer.apply(first, force=False).action == "written"
    assert path.stat().st_mode & 0o777 == 0o640
    stamp = path.stat().st_mtime_ns
    assert writer.apply(first, force=False).action == "unchanged"
    assert path.stat().st_mtime_ns == stamp
    second = Planned(path, "[DEFAULT]\nhost = b\npassword = other\n")
    kept = writer.apply(second, force=False)
    assert kept.action == "kept" and path.read_text() == first.text
    assert "\n-host = a\n" in kept.diff and "\n+host = b\n" in kept.diff
    assert "s3cret" not in kept.diff and "other" not in kept.diff and "password = ****" in kept.diff
    replaced = writer.apply(second, force=True)
    assert replaced.action == "replaced" and path.read_text() == second.text


def test_mask_hides_url_passwords() -> None:
    assert writer.mask("transport_url = rabbit://u:pw@h:5672/\n") == (
        "transport_url = rabbit://u:****@h:5672/\n"
    )
