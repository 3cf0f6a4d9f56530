"""A web worker starts its engine's process as it starts (matching/engine/warm_up.py) and
rehearses an engine call there: through litellm's whole async path, to an answer the worker
gives itself on loopback, never to the engine."""

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.engine import ScriptedEngine
from tests.support.worker import ROOT, database_url

pytestmark = pytest.mark.django_db(transaction=True)

# Every outgoing connection of every process started with it on its path, recorded by an
# audit hook in a file of the process's own: the worker's and its engine process's.
AUDIT = """
import json, os, sys
def audit(event, args):
    if event == "socket.connect" and isinstance(args[1], tuple):
        with open(os.path.join(os.path.dirname(__file__), f"connect-{os.getpid()}"), "a") as out:
            out.write(json.dumps(list(args[1][:2])) + "\\n")
sys.addaudithook(audit)
"""

# A worker's start-up and shutdown; what it answered on loopback while starting.
START_UP = """
import asyncio, json, os, sys
answered = []
opened = asyncio.start_server
async def start_server(respond, *args, **kwargs):
    async def noted(reader, writer):
        answered.append(writer.get_extra_info("peername")[0])
        await respond(reader, writer)
    return await opened(noted, *args, **kwargs)
asyncio.start_server = start_server
import gateway.asgi as web
from matching.engine import process as engine_process
messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])
async def receive():
    return next(messages)
async def send(message):
    if message["type"] == "lifespan.startup.complete":
        print(json.dumps([os.getpid(), engine_process.running("openai/scripted").process.pid]))
        print(json.dumps(answered))
        print(json.dumps("litellm" in sys.modules))
asyncio.run(web.application({"type": "lifespan"}, receive, send))
"""


@pytest.mark.processes
def test_a_starting_worker_rehearses_an_engine_call_in_its_engine_process(shelf, tmp_path):
    (tmp_path / "sitecustomize.py").write_text(AUDIT)
    with ScriptedEngine() as engine:
        started = subprocess.run(  # noqa: S603 - our own interpreter and code
            [sys.executable, "-c", START_UP],
            cwd=ROOT,
            env={
                "PATH": "/usr/bin:/bin",
                "PYTHONPATH": str(tmp_path),
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
        pids, answered, litellm_in_worker = map(json.loads, started.stdout.strip().splitlines())

        assert engine.calls == []  # the engine was never asked
    worker, child = pids
    assert child != worker
    assert answered == ["127.0.0.1"]  # the rehearsal, answered by the worker on loopback
    assert litellm_in_worker is False  # litellm lives in the engine's process alone
    connected = {
        int(path.name.removeprefix("connect-")): [json.loads(line) for line in path.open()]
        for path in Path(tmp_path).glob("connect-*")
    }
    assert {host for calls in connected.values() for host, _ in calls} == {"127.0.0.1"}
    services = {urlsplit(engine.api_base).port, urlsplit(database_url()).port or 5432}
    assert {port for _, port in connected[child]} - services  # its call: to the worker's answer
