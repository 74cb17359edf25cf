"""openstacksdk connections with the user's own token, one per logged-in token.

A connection is built from the scoped token's body (keystoneauth's
``AccessInfoPlugin``: the catalog comes with the token, nothing is
re-authenticated) and kept while its session lives, so each service's
version document is read once per session, not once per page.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from keystoneauth1 import session
from keystoneauth1.identity.access import AccessInfoPlugin
from openstack import connection

from saphira.dashboard.keystone import Login

APP_NAME = "saphira-dashboard"


class Connections:
    def __init__(self, region: str, verify: str | bool, timeout: float, limit: int) -> None:
        self.region = region
        self.verify = verify
        self.timeout = timeout
        self.limit = limit
        self._table: OrderedDict[str, connection.Connection] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, login: Login) -> connection.Connection:
        key = str(login.scoped.auth_token)
        with self._lock:
            found = self._table.get(key)
            if found is not None:
                self._table.move_to_end(key)
                return found
        made = self._connect(login)
        with self._lock:
            self._table[key] = made
            while len(self._table) > self.limit:
                self._table.popitem(last=False)[1].close()
        return made

    def forget(self, login: Login) -> None:
        with self._lock:
            gone = self._table.pop(str(login.scoped.auth_token), None)
        if gone is not None:
            gone.close()

    def _connect(self, login: Login) -> connection.Connection:
        auth = AccessInfoPlugin(login.scoped, auth_url=login.auth_url)
        user_session = session.Session(
            auth=auth, verify=self.verify, timeout=self.timeout, app_name=APP_NAME
        )
        return connection.Connection(
            session=user_session, region_name=self.region, interface="public", app_name=APP_NAME
        )
