"""The gateway's processes the proxy's suites share (tests/gateway/test_nginx*.py)."""

from collections.abc import Iterator

import pytest

from tests.support import nginx
from tests.support.web import WebServer


# Kept for the worker's session (tests/agents/conftest.py says why), not started again for each
# proxy module another package's tests come between.
@pytest.fixture(scope="session")
def roles(tmp_path_factory, django_db_setup, django_db_blocker) -> Iterator[list[WebServer]]:
    """Two web roles as they run behind nginx (docs/proxy.md)."""
    nginx.binary()  # skips (or fails) before the roles start
    env = {
        "WEB_CLIENT_BOUNDS": "false",
        "TRUSTED_PROXY_COUNT": "1",
        "THROTTLE_RATES": "cards=2/min",
        # Each role's own access lines (docs/alerts.md#logs): which role answered, and whom.
        "GUNICORN_CMD_ARGS": "--access-logfile -",
    }
    logs = tmp_path_factory.mktemp("roles")
    with (
        django_db_blocker.unblock(),
        WebServer(logs, env=env) as first,
        WebServer(logs, env=env) as second,
    ):
        yield [first, second]
