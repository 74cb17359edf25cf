"""The metadata API, as the metadata agent reaches it: one signed request, one answer.

Only the four headers of Nova's contract go (and the body, for the password
POST); nothing the guest sent besides its path, query and body. Answers are
relayed as Neutron's agent relays them: a refused signature (401/403) is a
403 to the guest, a failure of the API a 500 asking to retry.
"""

from __future__ import annotations

import dataclasses
import http.client
import logging

from saphira.network.metadata import headers

LOG = logging.getLogger(__name__)
RELAYED = frozenset({200, 400, 403, 404, 409})
RETRY = b"An unknown error has occurred. Please try your request again.\n"
MAX_ANSWER = 4 * 1024 * 1024


@dataclasses.dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    content_type: str = "text/plain; charset=UTF-8"


def failure() -> Answer:
    return Answer(500, RETRY)


@dataclasses.dataclass(frozen=True)
class MetadataApi:
    host: str
    port: int
    secret: str
    timeout: float = 10.0

    def forward(
        self,
        method: str,
        path: str,
        body: bytes,
        instance_id: str,
        project_id: str,
        remote_address: str,
    ) -> Answer:
        sent = headers.to_metadata_api(instance_id, project_id, remote_address, self.secret)
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.request(method, path, body=body or None, headers=sent)
            reply = connection.getresponse()
            data = reply.read(MAX_ANSWER)
            kind = reply.getheader("Content-Type") or "text/plain; charset=UTF-8"
        except (OSError, http.client.HTTPException) as error:
            LOG.warning("metadata API %s:%d unreachable: %s", self.host, self.port, error)
            return failure()
        finally:
            connection.close()
        return relayed(reply.status, data, kind, instance_id)


def relayed(status: int, body: bytes, content_type: str, instance_id: str) -> Answer:
    if status in (401, 403):
        LOG.warning(
            "metadata API refused the signature for instance %s: check that [neutron] "
            "metadata_proxy_shared_secret is the same for the agent and the API",
            instance_id,
        )
        return Answer(403, body, content_type)
    if status in RELAYED:
        return Answer(status, body, content_type)
    LOG.warning("metadata API answered %d for instance %s", status, instance_id)
    return failure()
