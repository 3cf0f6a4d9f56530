"""litellm's async calls in a process of their own, one beside each process that makes them.

litellm spends some 9 ms of CPU on each call (building the request through the OpenAI SDK's
transforms, reading the answer into its types, pricing it for its logs). In a web worker that
CPU was taken from the interpreter lock that the worker's requests share: beside 64 cold
recommends, a card lookup waited its turn behind litellm's work, and every recommend's own
steps too. Here litellm runs in a child process with an interpreter of its own, on the other
core; the worker sends each call's arguments down a socket and reads back the answer's text or
what went wrong, some 0.2 ms of its own CPU (docs/operations.md, "The intent engine's process").

The child is started on first use (a web worker starts it as it warms up, gateway/asgi.py),
imports litellm and rehearses its first call there, then runs every call it is sent as a task
of its event loop: a thousand waiting calls cost a thousand small objects, not a thousand
threads. A caller that stops waiting (its deadline, a client that hung up) cancels its call in
the child. If the child dies, its calls fail as an outage would (the breaker counts them) and
the next call starts a new one. The child exits when its parent does (the socket closes).

This module imports no Django: the child runs it as `python -m matching.engine_process FD`.
The synchronous door (`matching.engine._call`, for tasks and commands) calls litellm in its own
process, as before.
"""

import asyncio
import contextlib
import itertools
import logging
import socket
import subprocess
import sys
import threading
from concurrent.futures import Future, InvalidStateError
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
_LENGTH = 4  # bytes of each frame's length, big-endian, before its JSON
STARTING_TIMEOUT_S = 60.0  # the child importing litellm, on a slow machine


# --- What went wrong, told across the socket -----------------------------------------------------


@dataclass(frozen=True)
class Trace:
    """What an exception of a call says about the engine, read where it was raised: whether it
    timed out, how its connection failed, the provider's HTTP status. Plain data: it crosses
    the socket (matching.engine_failures.failure_from turns it into a Failure)."""

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
    return Trace(kind, status=status if isinstance(status, int) else None)


# --- The socket's frames ------------------------------------------------------------------------


def frame(message: dict[str, Any]) -> bytes:
    body = orjson.dumps(message)
    return len(body).to_bytes(_LENGTH, "big") + body


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, wanted = [], size
    while wanted:
        chunk = sock.recv(wanted)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        wanted -= len(chunk)
    return b"".join(chunks)


# --- The parent's side --------------------------------------------------------------------------


class Child:
    """One running child: its process, its end of the socket, the calls it owes an answer.
    A thread of the parent reads the answers and settles each call's future, whichever event
    loop (or thread) awaits it."""

    def __init__(self, model: str) -> None:
        mine, theirs = socket.socketpair()
        self.process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "matching.engine_process", str(theirs.fileno()), model],
            pass_fds=(theirs.fileno(),),
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
        )
        theirs.close()
        self.sock = mine
        # Settled once the child has imported litellm and warmed it, or has stopped: a caller's
        # deadline starts then (`started`). Running, so that no waiter can cancel it.
        self.started: Future[None] = Future()
        self.started.set_running_or_notify_cancel()
        self.pending: dict[int, Future[str]] = {}
        self.alive = True
        self._ids = itertools.count(1)
        self._lock = threading.Lock()  # the socket's writes, `pending` and `alive`
        threading.Thread(target=self._read, name="intent-engine-answers", daemon=True).start()

    def submit(self, kwargs: dict[str, Any]) -> tuple[int, "Future[str]"]:
        future: Future[str] = Future()
        with self._lock:
            if not self.alive:
                raise Raised(STOPPED)
            number = next(self._ids)
            self.pending[number] = future
            self.sock.sendall(frame({"id": number, "call": kwargs}))
        return number, future

    def cancel(self, number: int) -> None:
        with self._lock:
            if self.pending.pop(number, None) is not None and self.alive:
                with contextlib.suppress(OSError):
                    self.sock.sendall(frame({"id": number, "cancel": True}))

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # the child reads the end and exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def _read(self) -> None:
        try:
            while True:
                size = int.from_bytes(_read_exactly(self.sock, _LENGTH), "big")
                answer = orjson.loads(_read_exactly(self.sock, size))
                if answer.get("ready"):
                    self.started.set_result(None)
                    continue
                with self._lock:
                    future = self.pending.pop(answer["id"], None)
                if future is None:  # its caller stopped waiting
                    continue
                with contextlib.suppress(InvalidStateError):
                    if "content" in answer:
                        future.set_result(answer["content"])
                    else:
                        future.set_exception(Raised(Trace(**answer["error"])))
        except (OSError, EOFError, ValueError):
            pass
        with self._lock:
            self.alive = False
            owed, self.pending = self.pending, {}
        with contextlib.suppress(InvalidStateError):
            self.started.set_result(None)
        for future in owed.values():
            with contextlib.suppress(InvalidStateError):
                future.set_exception(Raised(STOPPED))
        self.sock.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)  # reaped, never a zombie


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


async def complete(kwargs: dict[str, Any]) -> str:
    """The text litellm's `acompletion(**kwargs)` answered, called in the child. Raises Raised
    with what went wrong. Cancelling the caller cancels the call in the child."""
    child = running(kwargs["model"])
    number, future = child.submit(kwargs)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        child.cancel(number)
        raise


def stop() -> None:
    """Stop this process's child, if it runs (a web worker's shutdown)."""
    global _child
    with _lock:
        if _child is not None:
            _child.stop()
            _child = None


# --- The child's side ---------------------------------------------------------------------------


def load_litellm() -> Any:
    """litellm, imported and told to keep quiet (no telemetry, no feedback banner per failure)."""
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


# What a completion looks like: what builds the response types, and the rehearsal's answer
# (matching/engine_warm_up.py).
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


async def _answer(
    litellm: Any, number: int, kwargs: dict[str, Any], out: asyncio.StreamWriter
) -> None:
    try:
        response = await litellm.acompletion(**kwargs)
        content = response.choices[0].message.content
        answer: dict[str, Any] = {
            "id": number,
            "content": content if isinstance(content, str) else "",
        }
    except Exception as exc:  # every provider error, mapped by litellm
        answer = {"id": number, "error": asdict(trace_of(exc))}
    out.write(frame(answer))  # the parent gone, this process soon follows (its socket closed)


def _forget(calls: dict[int, "asyncio.Task[None]"], number: int, _: object) -> None:
    calls.pop(number, None)


async def serve(sock: socket.socket, model: str) -> None:
    """Answer the parent's calls until it closes the socket."""
    litellm = load_litellm()
    _warm(litellm, model)
    reader, out = await asyncio.open_unix_connection(sock=sock)
    out.write(frame({"ready": True}))
    calls: dict[int, asyncio.Task[None]] = {}
    while True:
        try:
            size = int.from_bytes(await reader.readexactly(_LENGTH), "big")
            message = orjson.loads(await reader.readexactly(size))
        except (asyncio.IncompleteReadError, ConnectionError):
            break
        number = message["id"]
        if message.get("cancel"):
            if (task := calls.pop(number, None)) is not None:
                task.cancel()
            continue
        task = asyncio.create_task(_answer(litellm, number, message["call"], out))
        calls[number] = task
        task.add_done_callback(partial(_forget, calls, number))
    for task in list(calls.values()):
        task.cancel()


def main() -> None:
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)  # it logs every call at INFO
    asyncio.run(serve(socket.socket(fileno=int(sys.argv[1])), sys.argv[2]))


if __name__ == "__main__":
    main()
