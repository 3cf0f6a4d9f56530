"""litellm's async calls run on the engine's own event loop (matching/engine_loop.py), never on
the loop that serves requests, and a caller's deadline cancels them there."""

import asyncio
import threading

import litellm
import pytest

from matching import engine_loop

pytestmark = pytest.mark.django_db


def recommend(client, intent="trail running shoes"):
    return client.get("/v1/recommend", {"intent": intent})


def test_a_recommend_calls_litellm_on_the_engines_loop(client, shelf, engine, monkeypatch):
    seen = []
    acompletion = litellm.acompletion

    async def observed(**kwargs):  # the real call, with the thread it ran on noted
        seen.append(threading.current_thread().name)
        return await acompletion(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", observed)

    assert recommend(client).status_code == 200
    assert seen == ["intent-engine-loop"]
    assert engine.calls_count == 1


def test_a_deadline_cancels_the_call_on_the_engines_loop(client, shelf, engine, settings):
    settings.INTENT_ENGINE_TIMEOUT_S = 1.0
    engine.script("hang:20")

    assert recommend(client).status_code == 503

    async def calls_pending() -> list[str]:
        tasks = asyncio.all_tasks() - {asyncio.current_task()}
        return [repr(task) for task in tasks if "acompletion" in repr(task.get_coro())]

    assert asyncio.run(_on_engine_loop(calls_pending)) == []


async def _on_engine_loop(coroutine_function):
    return await engine_loop.run(coroutine_function())


def test_the_loop_serves_every_caller_from_its_own_thread():
    async def where() -> str:
        return threading.current_thread().name

    names = {asyncio.run(_on_engine_loop(where)) for _ in range(3)}

    assert names == {"intent-engine-loop"}
