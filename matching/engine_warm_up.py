"""Warming the intent engine's client as a web worker starts (gateway/asgi.py runs each app's
`warm_up()` on a thread, then its `awarm_up()` on the worker's event loop), never in
`manage.py` commands or Celery, which stay quick to start.

What the first engine call of a process would otherwise pay, beyond the engine's own time:
importing litellm (seconds) and the OpenAI client's resources (another second), then, on the
first real call, building the request's transforms, the HTTP client, the response types and
litellm's service logging (about 30 ms more than a later call). The last part is built by a
rehearsal: one call through litellm's whole async path, on the engine's own loop, to an answer
the worker gives itself on loopback. Nothing leaves the machine.
"""

import asyncio
import contextlib
import re

import orjson
from django.conf import settings

from matching import engine, engine_loop
from matching.resolution import messages_for

# What a completion looks like: the rehearsal's answer, and what builds the response types.
SAMPLE_COMPLETION = {
    "id": "chatcmpl-warm-up",
    "object": "chat.completion",
    "created": 0,
    "model": "warm-up",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}
REHEARSAL_TIMEOUT_S = 5.0

_CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)", re.IGNORECASE | re.MULTILINE)


def warm_up() -> None:
    """Import and set up what does not need the event loop."""
    if not engine.is_configured():
        return
    litellm = engine.load_litellm()
    with contextlib.suppress(Exception):  # a provider litellm cannot place fails at call time
        litellm.get_llm_provider(
            model=settings.INTENT_ENGINE_MODEL, api_base=settings.INTENT_ENGINE_API_BASE
        )
    with contextlib.suppress(ImportError):
        import openai.resources  # noqa: F401
    with contextlib.suppress(ImportError):  # imported by litellm's first HTTP call (10 ms)
        import litellm._service_logger
    # litellm's own first call sets up its logging and cost tables: a mocked call, which
    # sends nothing, does it now.
    with contextlib.suppress(Exception):
        litellm.completion(
            model=settings.INTENT_ENGINE_MODEL,
            messages=[{"role": "user", "content": "warm-up"}],
            mock_response="{}",
        )
    # The response types are built by pydantic on first use (tens of milliseconds).
    with contextlib.suppress(Exception):
        litellm.ModelResponse(**SAMPLE_COMPLETION)
        from openai.types.chat import ChatCompletion

        ChatCompletion.model_validate(SAMPLE_COMPLETION)


async def awarm_up() -> None:
    """The rehearsal, on the engine's event loop (matching/engine_loop.py), where litellm
    keeps what it builds. A provider that does not speak the OpenAI API fails it, quietly: its
    first call stays as it was."""
    if not engine.is_configured():
        return
    answer = orjson.dumps(SAMPLE_COMPLETION)

    async def respond(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            head = await reader.readuntil(b"\r\n\r\n")
            length = _CONTENT_LENGTH.search(head)
            await reader.readexactly(int(length.group(1)) if length else 0)
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(answer), answer)
            )
            await writer.drain()
        writer.close()

    async def rehearse() -> None:
        server = await asyncio.start_server(respond, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(REHEARSAL_TIMEOUT_S):
                    await engine.load_litellm().acompletion(
                        **engine.completion_kwargs(messages_for("warm-up", []))
                        | {
                            "api_base": f"http://127.0.0.1:{port}/v1",
                            "timeout": REHEARSAL_TIMEOUT_S,
                        }
                    )

    await engine_loop.run(rehearse())
