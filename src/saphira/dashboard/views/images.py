"""The Images pages: the list, one image, and its confirmed delete."""

from __future__ import annotations

from openstack import exceptions as sdk
from werkzeug.wrappers import Response

from saphira.dashboard import cloud_images
from saphira.dashboard.app import Ctx, redirect
from saphira.dashboard.errors import PageError

LIST = "/project/images"
DELETE_WARNING = (
    "Deleting an image removes its data from the image service for good: no new "
    "instance can be launched from it (instances already running keep their disks)."
)


def is_admin(ctx: Ctx) -> bool:
    return "admin" in (ctx.live.login.scoped.role_names or [])


def _image(ctx: Ctx) -> cloud_images.ImageRow:
    conn = ctx.conn
    return cloud_images.image(conn, ctx.args["image_id"], ctx.live.login.project.id, is_admin(ctx))


def listing(ctx: Ctx) -> Response:
    conn = ctx.conn
    rows = cloud_images.images(conn, ctx.live.login.project.id, is_admin(ctx))
    return ctx.page("images.html", rows=rows)


def show(ctx: Ctx) -> Response:
    upload = ctx.app.uploads.get(ctx.live.id, ctx.args["image_id"])
    try:
        image = _image(ctx)
    except sdk.NotFoundException:
        if upload is None or not upload.progress.message:
            raise
        raise PageError(404, upload.progress.message) from None  # this session's failed upload
    return ctx.page("image.html", image=image, upload=upload.progress if upload else None)


def confirm(ctx: Ctx) -> Response:
    image = _image(ctx)
    if not image.deletable:
        raise PageError(403, "You may not delete this image: it is protected or another's.")
    return ctx.page("image_confirm.html", image=image, warning=DELETE_WARNING)


def delete(ctx: Ctx) -> Response:
    image_id = ctx.args["image_id"]
    if ctx.request.form.get("confirmed") != "yes":
        return redirect(f"{LIST}/{image_id}/delete")
    cloud_images.delete(ctx.conn, image_id)
    return redirect(LIST)
