"""The identity backend: one database, one key repository, one set of settings.

Every caller (API request, manage command) works inside ``session()``: one
transaction that commits on success and rolls back on any error, so a failed
request writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from oslo_config import cfg
from sqlalchemy import exc
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from saphira.db.engine import describe_error
from saphira.db.identity import make_identity_engine
from saphira.db.transactions import Database
from saphira.exception import BadRequest, Conflict, DatabaseError
from saphira.identity import auth, roles
from saphira.identity.fernet_keys import KeyRepository
from saphira.identity.lockout import Lockout
from saphira.identity.passwords import Hasher
from saphira.identity.throttle import SourceThrottle
from saphira.identity.tokens import TokenPayload, TokenProvider


def key_repository(conf: cfg.ConfigOpts) -> KeyRepository:
    return KeyRepository(conf.identity.key_repository, conf.identity.max_active_keys)


class IdentityBackend:
    def __init__(
        self,
        engine: Engine,
        keys: KeyRepository,
        *,
        token_expiration: int = 3600,
        allow_expired_window: int = 172800,
        password_hash_cost: int = 14,
        lockout: Lockout | None = None,
        login_sources: SourceThrottle | None = None,
    ) -> None:
        self.engine = engine
        self.keys = keys
        self.tokens = TokenProvider(keys)
        self.token_expiration = token_expiration
        self.allow_expired_window = allow_expired_window
        self.password_hash_cost = password_hash_cost
        self.hasher = Hasher()
        self.lockout = Lockout(None, None) if lockout is None else lockout
        self.login_sources = SourceThrottle(0, 1, 1) if login_sources is None else login_sources
        # The engine's own isolation, as Keystone's (no READ COMMITTED override).
        self._database = Database(engine, read_committed=False)

    @classmethod
    def from_conf(cls, conf: cfg.ConfigOpts, engine: Engine | None = None) -> IdentityBackend:
        return cls(
            engine or make_identity_engine(conf),
            key_repository(conf),
            token_expiration=conf.identity.token_expiration,
            allow_expired_window=conf.identity.allow_expired_window,
            password_hash_cost=conf.identity.password_hash_cost,
            lockout=Lockout.from_conf(conf),
            login_sources=SourceThrottle(
                conf.identity.login_failures_per_source,
                conf.identity.login_failure_window,
                conf.identity.login_sources_tracked,
            ),
        )

    @contextmanager
    def session(self) -> Iterator[Session]:
        try:
            with self._database.session() as session:
                yield session
        except exc.IntegrityError:
            raise Conflict("Conflict occurred attempting to store data.") from None
        except exc.DataError as error:
            # e.g. a NUL byte PostgreSQL refuses: the input is wrong, not the server.
            raise BadRequest(f"Invalid input: {describe_error(self.engine.url, error)}") from None
        except exc.SQLAlchemyError as error:
            raise DatabaseError(describe_error(self.engine.url, error)) from None
        finally:
            session.close()

    def validate_token(
        self, session: Session, token: str, allow_expired: bool = False
    ) -> auth.TokenData:
        """``allow_expired``: also a token expired less than allow_expired_window ago."""
        window = self.allow_expired_window if allow_expired else 0
        return auth.validate(session, self.tokens, token, window)

    def issue_token(
        self,
        session: Session,
        user_id: str,
        methods: tuple[str, ...],
        scope: roles.Scope | None,
        parent: TokenPayload | None = None,
    ) -> auth.TokenData:
        return auth.issue(
            session,
            self.tokens,
            user_id=user_id,
            methods=methods,
            scope=scope,
            expiration=self.token_expiration,
            parent=parent,
        )
