"""The metadata WSGI app: the signed instance, its cached metadata, the asked path.

Errors are plain text as Nova's metadata handler (webob) writes them; the
guest's tools (cloud-init, curl) read the status, not a JSON body.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from oslo_config import cfg
from werkzeug.routing import Rule
from werkzeug.wrappers import Response

from saphira.api.metadata import signature
from saphira.api.metadata.cache import TTLCache
from saphira.api.wsgi import Application, Request
from saphira.api.wsgi.app import public_error
from saphira.computesvc import CellDirectory, guest_metadata
from saphira.exception import BadRequest, Forbidden, MethodNotAllowed, SaphiraError
from saphira.metadata import InstanceMetadata, Item, Settings, lookup, tree
from saphira.metadata.content import PASSWORD_CHUNK, PASSWORD_KEYS
from saphira.objects import Instance

MAX_PASSWORD = PASSWORD_CHUNK * len(PASSWORD_KEYS)


class Instances(Protocol):
    """Where the instances are (the cell databases; a fake in unit tests)."""

    def instance(self, uuid: str) -> Instance: ...

    def set_password(self, uuid: str, password: str) -> None: ...


@dataclass(frozen=True)
class DatabaseInstances:
    directory: CellDirectory

    def instance(self, uuid: str) -> Instance:
        return guest_metadata.instance(self.directory, uuid)

    def set_password(self, uuid: str, password: str) -> None:
        guest_metadata.set_password(self.directory, uuid, password)


@dataclass
class MetadataState:
    instances: Instances
    secret: str
    settings: Settings
    cache: TTLCache[InstanceMetadata]

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts) -> MetadataState:
        settings = Settings(conf.api.dhcp_domain or "", conf.default_availability_zone)
        cache: TTLCache[InstanceMetadata] = TTLCache(
            conf.api.metadata_cache_expiration, conf.api.metadata_cache_size
        )
        instances = DatabaseInstances(CellDirectory.shared(conf))
        return cls(instances, conf.neutron.metadata_proxy_shared_secret,
                   settings, cache)  # fmt: skip

    def metadata(self, who: signature.Proxied) -> InstanceMetadata:
        """The vouched-for instance's metadata; 404 if unknown, 403 if another project's."""

        def build() -> InstanceMetadata:
            return InstanceMetadata.build(self.instances.instance(who.instance_id), self.settings)

        md = self.cache.get(who.instance_id, build)
        if md.project_id != who.project_id:
            raise Forbidden("The instance does not belong to the project in X-Tenant-ID.")
        return md


def routes() -> list[Rule]:
    return [
        Rule("/", methods=["GET"], endpoint=serve),
        Rule("/<path:path>", methods=["GET", "POST"], endpoint=serve),
    ]


def _answer(item: Item) -> Response:
    return Response(item.body, content_type=f"{item.content_type}; charset=UTF-8")


def serve(state: MetadataState, request: Request, path: str = "") -> Response:
    tokens = tree.split(path)
    listing = tree.root_listing(tokens)
    if listing is not None and request.method == "GET":
        return _answer(listing)
    who = signature.check(request.headers, state.secret)
    md = state.metadata(who)
    if request.method == "POST":
        if not tree.is_password(tokens):
            raise MethodNotAllowed()
        return _post_password(state, request, md)
    return _answer(lookup(md, path))


def _post_password(state: MetadataState, request: Request, md: InstanceMetadata) -> Response:
    """The guest's one-time password post (Nova's ``password.handle_password``)."""
    if (request.content_length or 0) > MAX_PASSWORD:
        raise BadRequest("Request is too large.")
    body = request.stream.read(MAX_PASSWORD + 1)
    if len(body) > MAX_PASSWORD:
        raise BadRequest("Request is too large.")
    try:
        password = body.decode()
    except UnicodeDecodeError:
        raise BadRequest("The password must be text.") from None
    state.instances.set_password(md.uuid, password)
    state.cache.forget(md.uuid)
    return Response(b"", content_type="text/plain; charset=UTF-8")


class MetadataApp(Application):
    def __init__(self, state: MetadataState) -> None:
        super().__init__(routes(), lambda error: {})
        self.state = state

    def dispatch(self, request: Request, endpoint: Any, args: Mapping[str, Any]) -> Response:
        result: Response = endpoint(self.state, request, **args)
        return result

    def fault(self, error: SaphiraError) -> Response:
        error = public_error(error)
        text = f"{error.code} {error.title}\n\n{error.message}\n"
        return Response(text, status=error.code, content_type="text/plain; charset=UTF-8")
