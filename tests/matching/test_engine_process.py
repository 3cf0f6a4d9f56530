"""The web's engine calls run in a process of their own (matching/engine/process.py): litellm
is never called in the process that serves requests, a caller that stops waiting cancels its
call there, and a process that dies fails its calls as an outage and is replaced."""

import asyncio
import os
import stat
import time
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

import litellm
import pytest
from django.conf import settings

from matching.engine import process as engine_process
from matching.engine.client import completion_kwargs, failure_of
from matching.engine.resolution import messages_for

pytestmark = pytest.mark.django_db


def test_a_recommend_calls_the_engine_from_the_engines_process(client, shelf, engine, monkeypatch):
    async def never(**kwargs):  # litellm in this process
        raise AssertionError("litellm was called in the serving process")

    monkeypatch.setattr(litellm, "acompletion", never)

    response = client.get("/v1/recommend", {"intent": "trail running shoes"})

    assert response.status_code == 200
    assert engine.calls_count == 1
    child = engine_process.running("openai/scripted")
    assert child.process.pid != os.getpid()
    assert child.process.poll() is None


def _connections(pid: int, port: int) -> int:
    """Established TCP connections of process `pid` to `port` on loopback, from /proc."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd) if fd.is_symlink() else ""
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            count += fields[3] == "01" and remote_port == port and fields[9] in inodes
    return count


def _call_kwargs() -> dict:
    return completion_kwargs(messages_for("trail running shoes", []))


def _until(condition, timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_caller_that_stops_waiting_cancels_the_call_in_the_engines_process(engine):
    engine.script("hang:20")
    port = urlsplit(engine.api_base).port
    child = engine_process.running("openai/scripted")

    async def call_then_leave() -> None:
        call = asyncio.ensure_future(engine_process.complete(_call_kwargs()))
        await asyncio.to_thread(_until, lambda: engine.calls_count == 1)
        assert _connections(child.process.pid, port) == 1  # the call, waiting on the engine
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(call_then_leave())

    assert _until(lambda: _connections(child.process.pid, port) == 0)  # dropped there too
    assert child.process.poll() is None  # the child lives on for the next call


def test_an_engine_process_that_dies_fails_its_calls_as_an_outage_and_is_replaced(engine):
    engine.script("hang:20", "ok")
    child = engine_process.running("openai/scripted")

    async def call_while_it_dies() -> BaseException | engine_process.Completion:
        call = asyncio.ensure_future(engine_process.complete(_call_kwargs()))
        await asyncio.to_thread(_until, lambda: engine.calls_count == 1)
        child.process.kill()
        try:
            return await call
        except engine_process.Raised as raised:
            return raised

    outcome = asyncio.run(call_while_it_dies())

    assert isinstance(outcome, engine_process.Raised)
    failure = failure_of(outcome)
    assert (failure.outage, failure.cause) == (True, "engine process stopped")
    answer = asyncio.run(engine_process.complete(_call_kwargs()))  # a new process answers
    assert "trail running shoes" in answer.content
    assert engine_process.running("openai/scripted").process.pid != child.process.pid


def test_the_engines_socket_is_the_users_alone_and_goes_with_its_process():
    child = engine_process.running("openai/scripted")
    asyncio.run(engine_process.started("openai/scripted"))

    assert stat.S_IMODE(child.directory.stat().st_mode) == 0o700  # no other user may call
    assert Path(child.address).is_socket()
    engine_process.stop()
    assert _until(lambda: not child.directory.exists())
    assert child.process.poll() is not None


def test_both_doors_answer_the_text_with_the_model_and_the_tokens_the_provider_reported(engine):
    from matching.engine.client import call

    messages = messages_for("trail running shoes", [])
    through_the_process = asyncio.run(engine_process.complete(completion_kwargs(messages)))
    in_this_process = call(messages)

    for answer in (through_the_process, in_this_process):
        assert "trail running shoes" in answer.content
        assert (answer.model, answer.input_tokens, answer.output_tokens) == ("scripted", 10, 20)


def test_both_doors_reach_an_openai_compatible_engine_through_litellms_own_http_client(engine):
    """The canary of gateway/settings.py's EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER: a litellm
    that no longer reads it would send the OpenAI SDK's request (its user agent and headers)."""
    from matching.engine.client import call

    messages = messages_for("trail running shoes", [])
    asyncio.run(engine_process.complete(completion_kwargs(messages)))
    call(messages)

    for sent in engine.calls:
        assert sent.headers["user-agent"] == f"litellm/{version('litellm')}"
        assert not any(name.startswith("x-stainless") for name in sent.headers)
        assert sent.body["response_format"] == {"type": "json_object"}
        assert sent.body["max_tokens"] == settings.INTENT_ENGINE_MAX_TOKENS
