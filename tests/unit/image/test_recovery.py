"""A crash mid-upload: the next start leaves no half image active or on disk."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from saphira.db.engine import make_engine
from saphira.db.image import sync
from saphira.db.image.models import Image
from saphira.image.data import DataService, Limits
from saphira.image.records import Records
from saphira.image.store import FilesystemStore


def _image(image_id: str, status: str) -> Image:
    now = dt.datetime(2026, 1, 1)
    return Image(id=image_id, status=status, visibility="private", protected=False,
                 os_hidden=False, min_disk=0, min_ram=0, created_at=now, updated_at=now,
                 disk_format="raw", container_format="bare")  # fmt: skip


def test_saving_images_are_reset(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'glance.sqlite'}")
    sync(engine)
    records = Records(engine)
    store = FilesystemStore(str(tmp_path / "images"))
    store.ensure()
    service = DataService(records, store, FilesystemStore(str(tmp_path / "staging")),
                          Limits(2**40, 0, "sha512"))  # fmt: skip
    with records.session() as session:
        session.add_all([_image("saving", "saving"), _image("active", "active")])
    Path(store.path("active")).write_bytes(b"data")
    Path(store.path("saving")).write_bytes(b"renamed but not committed")
    Path(store.datadir, ".saving.part-1").write_bytes(b"half")
    assert service.recover() == ["saving"]
    with records.session() as session:
        statuses = {name: session.get(Image, name) for name in ("saving", "active")}
        assert {n: i.status if i else None for n, i in statuses.items()} == {
            "saving": "queued",
            "active": "active",
        }
    assert sorted(p.name for p in Path(store.datadir).iterdir()) == ["active"]
    engine.dispose()


def test_staged_image_without_its_data_stops_counting(tmp_path: Path) -> None:
    """An upload to staging whose file is gone goes back to queued without its size,
    which would otherwise count against the project's quota forever."""
    engine = make_engine(f"sqlite:///{tmp_path / 'glance.sqlite'}")
    sync(engine)
    records = Records(engine)
    staging = FilesystemStore(str(tmp_path / "staging"))
    staging.ensure()
    service = DataService(records, FilesystemStore(str(tmp_path / "images")), staging,
                          Limits(2**40, 0, "sha512"))  # fmt: skip
    with records.session() as session:
        lost, kept = _image("lost", "uploading"), _image("kept", "uploading")
        lost.owner = kept.owner = "p"
        lost.size = kept.size = 100
        session.add_all([lost, kept])
    Path(staging.path("kept")).write_bytes(b"x" * 100)
    assert sorted(service.recover()) == ["kept", "lost"]
    with records.session() as session:
        assert session.get(Image, "lost").status == "queued"  # type: ignore[union-attr]
        assert records.stored_bytes(session, "p", "other") == 100
        assert records.staged_bytes(session) == 100
    engine.dispose()
