"""The Images, Key pairs and Overview pages, by route endpoint (``routes.project_routes``)."""

from __future__ import annotations

from saphira.dashboard.app import View
from saphira.dashboard.views import image_upload, images, keypairs, overview

PROJECT_VIEWS: dict[str, View] = {
    "overview": overview.show,
    "images": images.listing,
    "image_upload_form": image_upload.form,
    "image_upload": image_upload.submit,
    "image": images.show,
    "image_progress": image_upload.progress,
    "image_confirm": images.confirm,
    "image_delete": images.delete,
    "keypairs": keypairs.listing,
    "keypair_create_form": keypairs.create_form,
    "keypair_create": keypairs.create,
    "keypair_import_form": keypairs.import_form,
    "keypair_import": keypairs.import_,
    "keypair_created": keypairs.created,
    "keypair_download": keypairs.download,
    "keypair_confirm": keypairs.confirm,
    "keypair_delete": keypairs.delete,
}
