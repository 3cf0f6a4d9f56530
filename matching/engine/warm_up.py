"""Warming the intent engine as a web worker starts (gateway/asgi.py runs each app's
`warm_up()` on a thread, then its `awarm_up()` on the worker's event loop), never in
`manage.py` commands or Celery, which stay quick to start.

The worker's engine calls run in a process of its own (matching/engine/process.py). What its
first call would otherwise pay, beyond the engine's own time: starting that process, importing
litellm there (seconds) and the OpenAI client's resources, then, on the first real call,
building the request's transforms, the HTTP client, the response types and litellm's service
logging (docs/benchmarks.md, the first recommend after start). `warm_up` starts the process,
which imports and sets up what it can alone; `awarm_up` rehearses one call through litellm's
whole async path there, to an answer the worker gives itself on loopback. Nothing leaves the
machine.
"""

import asyncio
import contextlib
import re

import orjson
from django.conf import settings

from matching.engine import client as engine
from matching.engine import process as engine_process
from matching.engine.resolution import messages_for

REHEARSAL_TIMEOUT_S = 5.0

_CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)", re.IGNORECASE | re.MULTILINE)


def warm_up() -> None:
    """Start the engine's process: it imports litellm while the worker warms the rest."""
    if engine.is_configured():
        engine_process.running(settings.INTENT_ENGINE_MODEL)


async def awarm_up() -> None:
    """The rehearsal, in the engine's process, where litellm keeps what it builds. A provider
    that does not speak the OpenAI API fails it, quietly: its first call stays as it was."""
    if not engine.is_configured():
        return
    answer = orjson.dumps(engine_process.SAMPLE_COMPLETION)

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

    server = await asyncio.start_server(respond, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        await engine_process.started(settings.INTENT_ENGINE_MODEL)
        with contextlib.suppress(Exception):
            async with asyncio.timeout(REHEARSAL_TIMEOUT_S):
                await engine_process.complete(
                    engine.completion_kwargs(messages_for("warm-up", []))
                    | {"api_base": f"http://127.0.0.1:{port}/v1", "timeout": REHEARSAL_TIMEOUT_S}
                )
