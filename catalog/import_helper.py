"""The import's helper process (catalog/importer.py): what search reads of each product of a
batch, made in a process of its own while the importing process parses the next lines and
writes the batch before.

What search reads of a product (its search document, type and brand key: catalog/documents.py)
and its embedding (catalog/semantic.py) are most of an import's work, and all of it Python's:
in one process, under Python's one lock, they and the parsing and writing take turns on one
core, whatever the machine has. The helper runs them on another core. It is started with the
import's first full batch and sent batches once it says it is up (its modules and the model
loaded): until then, and for an import of one batch, the importing process reads them itself,
so that a small import never waits for a process to start. It stops with the import. A helper
that cannot start, or stops, is replaced by the importing process itself, from the batch it did
not answer on: the import is slower, never different, and nothing is lost.

The two processes speak over the helper's standard input and output, a frame each way per
batch: its length (4 bytes) and the batch in `marshal`'s form (text fields in, documents and
embeddings out).
"""

import contextlib
import marshal
import os
import queue
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from catalog import semantic
from catalog.documents import readings

COMMAND = [sys.executable, "-m", "catalog.import_helper"]
# Whether a batch waits for the helper to be up rather than being read here meanwhile (tests
# set it, to know which process read what).
WAIT_UNTIL_UP = False
# A batch the helper has not answered in this long (far longer than a batch takes) is
# read here, and the helper stopped.
ANSWER_WITHIN_S = 120.0
_LENGTH = struct.Struct("!I")
_UP = "up"
_NOT_YET = object()

Row = dict[str, Any]


class Helper:
    """The helper process of one import: `submit` a batch, then call what it answers for the
    batch's readings, in the order submitted. A thread of this process takes each answer as the
    helper writes it, so that neither process ever waits on a full pipe for the other."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.answers: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.taker: threading.Thread | None = None
        self.up = False  # the helper said it is ready
        self.failed = False
        self.helped = 0  # batches the helper read

    def __enter__(self) -> "Helper":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def submit(self, texts: list[Row], embed: bool, *, started: bool) -> Callable[[], list[Row]]:
        """Send a batch, each product's text columns (`Product.TEXT_FIELDS`), to the helper
        (started when `started` asks for it and none runs yet); read it here while none is up."""
        if started and self.process is None and not self.failed:
            self._start(embed)
        if self.process is None or not self._is_up():
            return _here(texts, embed)
        try:
            _send(self.process.stdin, (texts, embed))
        except (OSError, ValueError):
            self._lost()
            return _here(texts, embed)
        return lambda: self._answer(texts, embed)

    def _answer(self, texts: list[Row], embed: bool) -> list[Row]:
        """The helper's answer for the batch of `texts`, else (it stopped) the batch read here."""
        found = self._next() if self.process is not None else None
        if not isinstance(found, list) or len(found) != len(texts):
            self._lost()
            return readings(texts, embed)
        self.helped += 1
        return found

    def _next(self, *, wait: bool = True) -> Any:
        try:
            return self.answers.get(timeout=ANSWER_WITHIN_S) if wait else self.answers.get_nowait()
        except queue.Empty:
            return None if wait else _NOT_YET

    def _is_up(self) -> bool:
        """Whether the helper said it is up (waiting for it with WAIT_UNTIL_UP)."""
        if not self.up and self.process is not None:
            said = self._next(wait=WAIT_UNTIL_UP)
            if said is _NOT_YET:
                return False
            self.up = said == _UP
            if not self.up:
                self._lost()
        return self.up

    def _start(self, embed: bool) -> None:
        try:
            self.process = subprocess.Popen(  # noqa: S603 - the project's own module
                [*COMMAND, "embed" if embed else "read"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=Path(__file__).resolve().parent.parent,
            )
        except OSError:
            self.failed = True
            return
        self.taker = threading.Thread(
            target=_take,
            args=(self.process.stdout, self.answers),
            name="import-helper",
            daemon=True,
        )
        self.taker.start()

    def _lost(self) -> None:
        self.failed = True
        self.stop(kill=True)

    def stop(self, *, kill: bool = False) -> None:
        """Close the helper's input (it ends at its end) and wait for it, killed if it will
        not (at once, with `kill`: it failed)."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.stdin is not None:
            with contextlib.suppress(OSError):  # it stopped with a batch half-sent
                process.stdin.close()
        if kill:
            process.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if self.taker is not None:
            self.taker.join(timeout=5)
        if process.stdout is not None:
            process.stdout.close()


def _take(stream: IO[bytes] | None, answers: "queue.SimpleQueue[Any]") -> None:
    """Each frame the helper writes, into `answers`; None when it stops."""
    while True:
        try:
            answers.put(_receive(stream))
        except (OSError, ValueError, EOFError, TypeError):
            answers.put(None)
            return


def _here(texts: list[Row], embed: bool) -> Callable[[], list[Row]]:
    found = readings(texts, embed)
    return lambda: found


def _send(stream: IO[bytes] | None, value: Any) -> None:
    if stream is None:
        raise OSError("no pipe to the helper")
    body = marshal.dumps(value)
    stream.write(_LENGTH.pack(len(body)) + body)
    stream.flush()


def _receive(stream: IO[bytes] | None) -> Any:
    if stream is None:
        raise OSError("no pipe from the helper")
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError("the helper stopped")
    (size,) = _LENGTH.unpack(head)
    body = stream.read(size)
    if len(body) < size:
        raise EOFError("the helper stopped")
    return marshal.loads(body)  # noqa: S302 - frames of our own helper process


def serve() -> None:
    """The helper's loop: a batch in, its readings out, until the importing process closes the
    pipe. Anything else printed goes to standard error, never into a frame. A Ctrl-C at the
    terminal is the importing process's to handle: it stops the helper by closing the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    batches = sys.stdin.buffer
    if sys.argv[1:] == ["embed"]:
        semantic.model()  # loaded before it says it is up
    _send(answers, _UP)
    while True:
        try:
            texts, embed = _receive(batches)
        except EOFError:
            return
        _send(answers, readings(texts, embed))


if __name__ == "__main__":
    serve()
