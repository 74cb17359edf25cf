"""Callers, outcomes and the named profiles the policy matrix is written in.

A profile is what each of the seven callers gets from one route, in the
order of ``CALLERS``. ``OK`` means the request passed authorization: a
2xx/3xx answer, or an error that only comes after the policy check (400,
409, 410, 413, 415; a 404 too, but not on a GET, where the resource exists and an
allowed caller must see it; a write may find it gone after an earlier
allowed caller deleted or moved it).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Caller(enum.Enum):
    ADMIN = "admin"  # admin role in the admin project
    MEMBER = "member"  # member of the home project
    READER = "reader"  # reader of the home project
    OTHER_MEMBER = "other_member"  # member of another project
    OTHER_READER = "other_reader"  # reader of another project
    ANONYMOUS = "anonymous"  # no token
    EXPIRED = "expired"  # a token that expired a minute ago


CALLERS = tuple(Caller)
OTHERS = (Caller.OTHER_MEMBER, Caller.OTHER_READER)


class Outcome(enum.Enum):
    OK = "ok"
    UNAUTHORIZED = 401
    FORBIDDEN = 403
    HIDDEN = 404  # another project's resource: as if it did not exist

    def matches(self, status: int, method: str) -> bool:
        if self is Outcome.OK:
            if status == 404:
                return method != "GET"
            return status < 400 or status in (400, 409, 410, 413, 415)
        return bool(status == self.value)


OK, E401, E403, E404 = Outcome.OK, Outcome.UNAUTHORIZED, Outcome.FORBIDDEN, Outcome.HIDDEN


@dataclass(frozen=True)
class Profile:
    """One route's expected outcome per caller (admin, member, reader, other
    project's member and reader, no token, expired token)."""

    name: str
    admin: Outcome
    member: Outcome
    reader: Outcome
    other_member: Outcome
    other_reader: Outcome
    anonymous: Outcome = E401
    expired: Outcome = E401

    def expect(self, caller: Caller) -> Outcome:
        outcome: Outcome = getattr(self, caller.value)
        return outcome


# fmt: off
# Version documents and token issue: no token needed, a bad one is ignored.
PUBLIC = Profile("PUBLIC", OK, OK, OK, OK, OK, OK, OK)
# Any valid token; what comes back is the caller's own (own keypairs, own
# project's list, the catalog...). Other projects' callers must not find the
# home project's private resources in the answer (checked on every GET).
AUTHENTICATED = Profile("AUTHENTICATED", OK, OK, OK, OK, OK)
# Create in the caller's own project: members yes, readers no.
OWN_WRITE = Profile("OWN_WRITE", OK, OK, E403, OK, E403)
# Cloud administration.
ADMIN_ONLY = Profile("ADMIN_ONLY", OK, E403, E403, E403, E403)
# A resource of the home project: its readers see it, other projects do not.
PROJECT_READ = Profile("PROJECT_READ", OK, OK, OK, E404, E404)
PROJECT_WRITE = Profile("PROJECT_WRITE", OK, OK, E403, E404, E404)
# An admin-only operation on a home resource other projects cannot see.
PROJECT_ADMIN = Profile("PROJECT_ADMIN", OK, E403, E403, E404, E404)
# Nova's network proxies: Nova checks the role in the caller's own project, then
# the network service hides another project's group.
PROXY_WRITE = Profile("PROXY_WRITE", OK, OK, E403, E404, E403)
# Keystone (and Nova for quotas) answer 403 rather than 404.
PROJECT_READ_403 = Profile("PROJECT_READ_403", OK, OK, OK, E403, E403)
# Keystone's token_subject: the home member's own token, or an admin.
TOKEN_SUBJECT = Profile("TOKEN_SUBJECT", OK, OK, E403, E403, E403)
# Keystone's self-service on the home member's user (and admins).
SELF = Profile("SELF", OK, OK, E403, E403, E403)
# A user's own password: the user, with a token of their own; admins reset
# passwords with PATCH /v3/users/{id}. Deliberately stricter than Keystone,
# which leaves the route unenforced (the original password is the proof, so a
# user whose password expired can change it without a token).
OWN_PASSWORD = Profile("OWN_PASSWORD", E403, OK, E403, E403, E403)
# Nova's keypairs belong to a user: the home member's own, or an admin asking
# with ?user_id=.
USER_OWNED = Profile("USER_OWNED", OK, OK, E403, E403, E403)
# Glance: a shared image's membership is changed by the member project only.
# fmt: on

PROFILES = (
    PUBLIC,
    AUTHENTICATED,
    OWN_WRITE,
    ADMIN_ONLY,
    PROJECT_READ,
    PROJECT_WRITE,
    PROJECT_ADMIN,
    PROJECT_READ_403,
    PROXY_WRITE,
    TOKEN_SUBJECT,
    SELF,
    OWN_PASSWORD,
    USER_OWNED,
)
