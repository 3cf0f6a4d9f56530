"""A deadline on a connection as a whole, whatever it waits for: connecting, TLS, the answer's
head, its body.

A socket's timeout bounds one operation at a time: a peer that drips a byte before each timeout
runs out (a TLS handshake, a response head, a body) holds the connection, and the thread reading
it, for as long as it likes. `watch(sock, deadline)` keeps a duplicate of the socket's descriptor
and, at the deadline, shuts the connection down through it: every read or write waiting on it,
on whatever thread and through whatever layer (urllib3, http.client, OpenSSL), returns at once
with an error or the end of the stream. The duplicate is the watchdog's own, so the descriptor
it shuts down is never one the system gave to another socket in between; `forget` closes it.

One thread watches every deadline of the process, in the order they fall.
"""

import contextlib
import heapq
import itertools
import socket
import threading
import time
from dataclasses import dataclass, field


@dataclass(order=True)
class Watch:
    """One connection's deadline (time.monotonic()) and the watchdog's own handle on it."""

    deadline: float
    order: int
    handle: socket.socket | None = field(compare=False)


class Watchdog:
    """Shuts connections down at their deadlines, from a thread of its own."""

    def __init__(self) -> None:
        self.watches: list[Watch] = []
        self.condition = threading.Condition()
        self.counter = itertools.count()
        self.thread: threading.Thread | None = None

    def watch(self, sock: socket.socket, deadline: float) -> Watch:
        """Shut `sock`'s connection down at `deadline` (time.monotonic()), unless forgotten."""
        entry = Watch(deadline, next(self.counter), sock.dup())
        with self.condition:
            heapq.heappush(self.watches, entry)
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self.run, name="socket-deadlines", daemon=True
                )
                self.thread.start()
            self.condition.notify()
        return entry

    def forget(self, entry: Watch) -> None:
        """The connection ended before its deadline: nothing to shut down."""
        with self.condition:
            handle, entry.handle = entry.handle, None
        if handle is not None:
            handle.close()

    def run(self) -> None:
        while True:
            with self.condition:
                while self.watches and self.watches[0].handle is None:
                    heapq.heappop(self.watches)  # forgotten
                if not self.watches:
                    self.condition.wait()
                    continue
                wait = self.watches[0].deadline - time.monotonic()
                if wait > 0:
                    self.condition.wait(wait)
                    continue
                entry = heapq.heappop(self.watches)
                handle, entry.handle = entry.handle, None
            if handle is not None:
                with contextlib.suppress(OSError):  # the peer may have gone already
                    handle.shutdown(socket.SHUT_RDWR)
                handle.close()


WATCHDOG = Watchdog()
