"""The dashboard's pages, by route endpoint (``routes.py``)."""

from __future__ import annotations

from saphira.dashboard.app import View
from saphira.dashboard.views import auth, detail, detail_live, instances, launch, server_forms
from saphira.dashboard.views.admin_table import ADMIN_VIEWS
from saphira.dashboard.views.network_table import NETWORK_VIEWS
from saphira.dashboard.views.project import PROJECT_VIEWS
from saphira.dashboard.views.verify import show as verify_show

VIEWS: dict[str, View] = {
    "home": auth.home,
    "login_form": auth.login_form,
    "login": auth.login,
    "logout": auth.logout,
    "switch": auth.switch,
    "static": auth.static,
    "instances": instances.listing,
    "events": instances.events,
    "launch_form": launch.form,
    "launch": launch.submit,
    "detail": detail.show,
    "confirm": detail.confirm,
    "act": detail.act,
    **NETWORK_VIEWS,
    **ADMIN_VIEWS,
    **PROJECT_VIEWS,  # Images, Key pairs and Overview
    # Instance details: live stream, resize and snapshot forms.
    "detail_events": detail_live.events,
    "resize_form": server_forms.resize_form,
    "resize": server_forms.resize,
    "snapshot_form": server_forms.snapshot_form,
    "snapshot": server_forms.snapshot,
    "verify": verify_show,  # issue 15: the instance verified in layers
}
