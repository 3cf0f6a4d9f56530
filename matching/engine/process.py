"""litellm's async calls in a process of their own, one beside each web worker that makes them.

litellm spends CPU on each call (building the request through the OpenAI SDK's transforms,
reading the answer into its types, pricing it for its logs). In a web worker that CPU came out
of the interpreter lock the worker's requests share: beside many cold recommends, a card lookup
waited its turn behind litellm's work. Here litellm runs in a child process with an interpreter
of its own, which the kernel schedules on another core (docs/serving.md, "The intent
engine's process").

How they speak: asyncio streams over a Unix socket in a directory only this user can enter,
one connection per call, one line of JSON each way (JSON Lines): litellm's arguments, then the
answer (a Completion: its text, the model and its token counts) or what went wrong (a Trace).
The call's line goes out with the connection, by the event loop's own non-blocking send
(`loop.sock_sendall`), so that the child wakes once to a whole call, never to an empty
connection first. The connection is the call: a caller that
stops waiting (its deadline, a client that hung up) closes it, and the child cancels the call,
dropping its connection to the provider. Every call is a task of the child's event loop: a
thousand waiting calls cost a thousand small objects, not a thousand threads.

Its life: started on first use (a web worker starts it as it warms up, gateway/asgi.py), the
child imports litellm and rehearses its first call, then serves and says so over a socket pair
it shares with its parent, which also tells each when the other is gone: the child exits with
its parent, and a child that died fails its calls as an outage would (the breaker counts them)
and the next call starts a new one.

This module imports no Django: the child runs it as `python -m matching.engine.process`. The
synchronous door (`matching.engine.client.call`, for tasks and commands) calls litellm in its own
process.
"""

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future, InvalidStateError
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import orjson
import uvloop

ROOT = Path(__file__).resolve().parents[2]  # the checkout: where `-m matching...` is found
STARTING_TIMEOUT_S = 60.0  # the child importing litellm, on a slow machine
# The longest line either side reads: a call's prompt lists the catalog's categories.
LINE_LIMIT = 16 * 1024 * 1024


# --- What went wrong, told across the socket -----------------------------------------------------


@dataclass(frozen=True)
class Trace:
    """What an exception of a call says about the engine, read where it was raised: whether it
    timed out, how its connection failed, the provider's HTTP status. Plain data: it crosses
    the socket (matching.engine.failures.failure_from turns it into a Failure)."""

    kind: str  # the exception's class name
    timeout: bool = False
    connection: str | None = None  # "refused", "name lookup" or "failed"
    status: int | None = None
    stopped: bool = False  # the child process stopped before it answered


STOPPED = Trace("EngineProcessStopped", stopped=True)


class Raised(Exception):
    """A call that failed in the child, with its Trace."""

    def __init__(self, trace: Trace) -> None:
        super().__init__(trace.kind)
        self.trace = trace


@dataclass(frozen=True)
class Completion:
    """What the engine answered: its text, and what the provider said of the call (the model
    that answered, the tokens it read and wrote), which metrics and traces report. Plain data:
    it crosses the socket."""

    content: str
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None


def completion_of(response: Any) -> Completion:
    """The Completion of a litellm response (its usage as the OpenAI format names it)."""
    content = response.choices[0].message.content
    usage = getattr(response, "usage", None)

    def count(name: str) -> int | None:
        value = getattr(usage, name, None)
        return value if isinstance(value, int) else None

    model = getattr(response, "model", None)
    return Completion(
        content=content if isinstance(content, str) else "",
        model=model if isinstance(model, str) else None,
        input_tokens=count("prompt_tokens"),
        output_tokens=count("completion_tokens"),
    )


def _chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def trace_of(exc: BaseException) -> Trace:
    """The Trace of a litellm error. litellm maps providers' errors to its own classes (a
    refused connection to an OpenAI-compatible server is its InternalServerError); the cause
    underneath is read from the chain."""
    chain = _chain(exc)
    kind = type(exc).__name__
    if any(isinstance(link, TimeoutError) or "Timeout" in type(link).__name__ for link in chain):
        return Trace(kind, timeout=True)
    names = {type(link).__name__ for link in chain}
    if "APIConnectionError" in names or any(isinstance(link, OSError) for link in chain):
        if any(isinstance(link, ConnectionRefusedError) for link in chain):
            return Trace(kind, connection="refused")
        if any(isinstance(link, socket.gaierror) for link in chain):
            return Trace(kind, connection="name lookup")
        return Trace(kind, connection="failed")
    status = getattr(exc, "status_code", None)
    if status == 500 and not any("HTTPStatusError" in name for name in names):
        # litellm's own HTTP client reports a request its client refused to send (an address
        # with credentials in it) as a 500 that no server answered.
        return Trace(kind, connection="failed")
    return Trace(kind, status=status if isinstance(status, int) else None)


# --- The parent's side --------------------------------------------------------------------------


class Child:
    """One running child: its process, the address of its calls, and a thread of the parent
    that learns from the socket pair when the child is ready and when it is gone."""

    def __init__(self, model: str) -> None:
        # mkdtemp's directory is the caller's alone: no other user may ask the child for a call.
        self.directory = Path(tempfile.mkdtemp(prefix="gateway-engine-"))
        self.address = str(self.directory / "calls.sock")
        mine, theirs = socket.socketpair()
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [
                sys.executable, "-m", "matching.engine.process",
                str(theirs.fileno()), self.address, model,
            ],
            pass_fds=(theirs.fileno(),),
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        theirs.close()
        self.lifeline = mine
        # Settled once the child serves, or has stopped: a caller's deadline starts then
        # (`started`). Running, so that no waiter can cancel it.
        self.started: Future[None] = Future()
        self.started.set_running_or_notify_cancel()
        self.alive = True
        threading.Thread(target=self._watch, name="intent-engine-process", daemon=True).start()

    def _watch(self) -> None:
        with contextlib.suppress(OSError):
            if self.lifeline.recv(1):  # the child serves
                self.started.set_result(None)
                self.lifeline.recv(1)  # returns once the child is gone: it never writes again
        self.alive = False
        with contextlib.suppress(InvalidStateError):
            self.started.set_result(None)  # its calls now fail as STOPPED
        self.lifeline.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)  # reaped, never a zombie
        shutil.rmtree(self.directory, ignore_errors=True)

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.lifeline.shutdown(socket.SHUT_RDWR)  # the child reads the end and exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


_lock = threading.Lock()
_child: Child | None = None


def running(model: str) -> Child:
    """This process's child, started (warmed for `model`) when there is none or the last one
    stopped."""
    global _child
    with _lock:
        if _child is None or not _child.alive or _child.process.poll() is not None:
            if _child is not None:
                _child.stop()
            _child = Child(model)
        return _child


async def started(model: str) -> None:
    """Return once this process's child has started and warmed up (or has stopped: its calls
    then fail as STOPPED), within STARTING_TIMEOUT_S. Starting the child (seconds: it imports
    litellm) is never counted in an engine call's deadline."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(STARTING_TIMEOUT_S):
            await asyncio.wrap_future(running(model).started)


async def complete(kwargs: dict[str, Any]) -> Completion:
    """What litellm's `acompletion(**kwargs)` answered, called in the child. Raises Raised with
    what went wrong. Cancelling the caller cancels the call in the child."""
    child = running(kwargs["model"])
    if not child.started.done():
        await asyncio.wrap_future(child.started)
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        # The call goes out with the connection, before the child can wake to an empty one.
        await loop.sock_connect(sock, child.address)
        await loop.sock_sendall(sock, orjson.dumps(kwargs) + b"\n")
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=LINE_LIMIT)
    except OSError:  # the child stopped, its socket gone or refusing
        sock.close()
        raise Raised(STOPPED) from None
    try:
        line = await reader.readline()
    except OSError:
        line = b""
    finally:
        writer.close()  # a caller that stops waiting: the child cancels the call
    if not line.endswith(b"\n"):  # the child stopped before it answered
        raise Raised(STOPPED)
    answer = orjson.loads(line)
    if "error" in answer:
        raise Raised(Trace(**answer["error"]))
    return Completion(**answer["completion"])


def stop() -> None:
    """Stop this process's child, if it runs (a web worker's shutdown)."""
    global _child
    with _lock:
        if _child is not None:
            _child.stop()
            _child = None


# --- The child's side ---------------------------------------------------------------------------


def load_litellm() -> Any:
    """litellm, imported and told to keep quiet (no telemetry, no feedback banner per failure),
    and to send OpenAI-compatible calls through its own HTTP client rather than the OpenAI SDK,
    whose transforms of each request cost more CPU than the rest of litellm's work on a call
    (docs/engine.md; an environment that sets the switch keeps its choice)."""
    os.environ.setdefault("EXPERIMENTAL_OPENAI_BASE_LLM_HTTP_HANDLER", "True")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


# What a completion looks like: what builds the response types, and the rehearsal's answer
# (matching/engine/warm_up.py).
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


def _warm(litellm: Any, model: str) -> None:
    """What the first call would otherwise pay for: the OpenAI SDK's resources, litellm's
    service logging and cost tables (a mocked call, which sends nothing), the response types
    (pydantic builds them on first use). The parent's rehearsal builds the rest."""
    with contextlib.suppress(ImportError):
        import openai.resources  # noqa: F401
    with contextlib.suppress(ImportError):
        import litellm._service_logger
    with contextlib.suppress(Exception):  # a provider litellm cannot place fails at call time
        litellm.completion(
            model=model, messages=[{"role": "user", "content": "warm-up"}], mock_response="{}"
        )
    with contextlib.suppress(Exception):
        from openai.types.chat import ChatCompletion

        litellm.ModelResponse(**SAMPLE_COMPLETION)
        ChatCompletion.model_validate(SAMPLE_COMPLETION)


async def _completion(litellm: Any, kwargs: dict[str, Any]) -> bytes:
    """The answer's line: its Completion, or the Trace of what went wrong."""
    try:
        response = await litellm.acompletion(**kwargs)
    except Exception as exc:  # every provider error, mapped by litellm
        return orjson.dumps({"error": asdict(trace_of(exc))})
    return orjson.dumps({"completion": asdict(completion_of(response))})


async def _reply(litellm: Any, kwargs: dict[str, Any], writer: asyncio.StreamWriter) -> None:
    """The call, its answer written the moment litellm returns it: litellm's logging of the
    call is a task of the loop that would otherwise run first, while the caller waits."""
    writer.write(await _completion(litellm, kwargs) + b"\n")


async def _answer(litellm: Any, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """One connection, one call: answered, or cancelled when the caller closes first."""
    try:
        call = asyncio.ensure_future(_reply(litellm, orjson.loads(await reader.readline()), writer))
        hangup = asyncio.ensure_future(reader.read())  # the caller never writes again
        await asyncio.wait((call, hangup), return_when=asyncio.FIRST_COMPLETED)
        hangup.cancel()
        if not call.done():
            call.cancel()  # its connection to the provider is dropped
            return
        await writer.drain()
    except (OSError, ValueError):  # a caller gone, or a line that is no call
        pass
    finally:
        writer.close()


async def serve(lifeline: socket.socket, address: str, model: str) -> None:
    """Answer calls at `address` until the parent is gone."""
    litellm = load_litellm()
    _warm(litellm, model)
    server = await asyncio.start_unix_server(
        partial(_answer, litellm), path=address, limit=LINE_LIMIT, backlog=socket.SOMAXCONN
    )
    loop = asyncio.get_running_loop()
    lifeline.setblocking(False)
    with contextlib.suppress(OSError):
        await loop.sock_sendall(lifeline, b"R")  # ready
        while await loop.sock_recv(lifeline, 1):  # b"": the parent is gone
            pass
    server.close()  # the calls still under way are cancelled as the loop ends


def main() -> None:
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)  # it logs every call at INFO
    lifeline, address, model = socket.socket(fileno=int(sys.argv[1])), sys.argv[2], sys.argv[3]
    try:
        # uvloop, as the web worker's: its loop and streams cost the calls less CPU than asyncio's.
        uvloop.run(serve(lifeline, address, model))
    finally:
        shutil.rmtree(Path(address).parent, ignore_errors=True)


if __name__ == "__main__":
    main()
