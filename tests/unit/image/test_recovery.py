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
