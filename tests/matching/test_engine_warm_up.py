"""A web worker rehearses an engine call as it starts (matching/engine_warm_up.py): through
litellm's whole async path, to an answer it gives itself on loopback, never to the engine."""

import json
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from tests.support.engine import ScriptedEngine
from tests.support.worker import ROOT, database_url

pytestmark = pytest.mark.django_db(transaction=True)

# A worker's start-up, with every outgoing connection recorded by an audit hook.
START_UP = """
import asyncio, json, sys
connected = []
def audit(event, args):
    if event == "socket.connect" and isinstance(args[1], tuple):
        connected.append(args[1])
sys.addaudithook(audit)
import gateway.asgi as web
messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
async def receive():
    return next(messages)
async def send(message):
    if message["type"] == "lifespan.startup.complete":
        print(json.dumps(sorted({address[0] for address in connected})))
        print(json.dumps(sorted({address[1] for address in connected})))
        print(json.dumps("litellm._service_logger" in sys.modules))
asyncio.run(web.application({"type": "lifespan"}, receive, send))
"""


def test_a_starting_worker_rehearses_an_engine_call_on_loopback_only(shelf):
    with ScriptedEngine() as engine:
        started = subprocess.run(  # noqa: S603 - our own interpreter and code
            [sys.executable, "-c", START_UP],
            cwd=ROOT,
            env={
                "PATH": "/usr/bin:/bin",
                "DJANGO_SECRET_KEY": "test",
                "DATABASE_URL": database_url(),
                "INTENT_ENGINE_MODEL": "openai/scripted",
                "INTENT_ENGINE_API_BASE": engine.api_base,
                "INTENT_ENGINE_API_KEY": "sk-test",
            },
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        hosts, ports, service_logging = map(json.loads, started.stdout.strip().splitlines())

        assert engine.calls == []  # the engine was never asked
    assert hosts == ["127.0.0.1"]  # nothing left the machine
    services = {urlsplit(engine.api_base).port, urlsplit(database_url()).port or 5432}
    assert set(ports) - services, ports  # the worker's own answer, on a port of its own
    assert service_logging is True
