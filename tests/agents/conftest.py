"""The gateway served for real (the Procfile's `web` role on loopback) for the agents' official
clients, with the scripted intent engine behind it and the card's URLs pointing at it."""

import logging
from collections.abc import Iterator

import pytest

from tests.support.engine import ScriptedEngine
from tests.support.ucp_platforms import PlatformProfiles
from tests.support.web import WebServer

INTENT = "waterproof trail running shoes"

# The clients log every request and the whole agent card at INFO.
for name in ("httpx", "httpx2", "a2a", "mcp"):
    logging.getLogger(name).setLevel(logging.WARNING)


# One engine and one web role serve every module of the package (a web role takes seconds to
# start), once on each parallel worker that runs agents' tests. Kept for the worker's session, not
# the package's: the run interleaves the package's modules with others' (tests/conftest.py), and a
# package's fixtures end whenever a test from another package comes between, to start again.
@pytest.fixture(scope="session")
def scripted_engine():
    with ScriptedEngine() as engine:
        yield engine


@pytest.fixture
def scripted(scripted_engine):
    scripted_engine.reset()
    scripted_engine.answer(
        INTENT,
        normalized_query=INTENT,
        keywords=["trail running", "shoe"],
        categories=["Running Shoes"],
        intent_tags=["trail", "running", "waterproof"],
    )
    yield scripted_engine
    scripted_engine.reset()


def serve(tmp_path_factory, engine, **env):
    """The web role, its public base URL its own loopback address."""
    server = WebServer(
        tmp_path_factory.mktemp("web"),
        env={
            "INTENT_ENGINE_MODEL": "openai/scripted",
            "INTENT_ENGINE_API_BASE": engine.api_base,
            "INTENT_ENGINE_API_KEY": "sk-test",
            "DJANGO_ALLOWED_HOSTS": "localhost,127.0.0.1",
            "INTENT_ENGINE_RETRIES": "0",  # one scripted failure fails one request
            **env,
        },
    )
    server.env["PUBLIC_BASE_URL"] = f"http://127.0.0.1:{server.port}"
    return server


@pytest.fixture(scope="session")
def web(tmp_path_factory, scripted_engine, django_db_setup, ec_pems):
    """The web role with a signing key, as `make run` configures one: the card it serves is
    signed (ES256)."""
    key = {"MANDATE_SIGNING_KEY": ec_pems[0], "MANDATE_SIGNING_KEY_FILE": ""}
    with serve(tmp_path_factory, scripted_engine, **key) as server:
        yield server


@pytest.fixture
def platforms(loopback) -> Iterator[PlatformProfiles]:
    """UCP platforms' profiles on loopback (tests/support/ucp_platforms.py)."""
    with PlatformProfiles() as served:
        yield served
