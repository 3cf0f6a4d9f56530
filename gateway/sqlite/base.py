"""SQLite, the embedded default, with its writers handed the write lock one after another.

SQLite lets one connection write at a time. A connection that finds the write lock taken waits
in SQLite's busy handler, which sleeps in growing steps (up to 100 ms) before it looks again:
under concurrent recommends the writers slept long after the lock was free and the database sat
idle (22 recommends a second where PostgreSQL served 32). Here a transaction first takes the
write turn, then BEGIN IMMEDIATE, which no longer waits:

- among the threads of a process, a lock that the releasing thread hands over at once;
- among processes (web workers, Celery), an exclusive `flock` on a file beside the database,
  tried by at most one thread per process, every few milliseconds. The kernel drops the lock of
  a process that dies.

Waiting is bounded by the database's `timeout` option, after which the transaction fails with
"database is locked", as SQLite's own would. Statements outside a transaction keep SQLite's
busy timeout.
"""

import fcntl
import os
import threading
import time
from typing import Any

from django.db import OperationalError
from django.db.backends.sqlite3 import base

_writers = threading.Lock()  # this process's writer, if any


def _locked() -> OperationalError:
    return OperationalError("database is locked")


class DatabaseWrapper(base.DatabaseWrapper):
    _turn_fd: int | None = None
    _has_turn = False

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        if not self.is_in_memory_db() and self._turn_fd is None:
            path = f"{self.settings_dict['NAME']}.writers"
            self._turn_fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        return connection

    def _take_turn(self) -> None:
        if self._turn_fd is None:
            return
        timeout = float(self.settings_dict["OPTIONS"].get("timeout", 5))
        deadline = time.monotonic() + timeout
        if not _writers.acquire(timeout=timeout):
            raise _locked()
        pause = 0.0005
        while True:
            try:
                fcntl.flock(self._turn_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    _writers.release()
                    raise _locked() from None
                time.sleep(pause)
                pause = min(pause * 2, 0.004)
            else:
                self._has_turn = True
                return

    def _end_turn(self) -> None:
        if self._has_turn:
            self._has_turn = False
            fcntl.flock(self._turn_fd, fcntl.LOCK_UN)  # type: ignore[arg-type]
            _writers.release()

    def _start_transaction_under_autocommit(self) -> None:
        self._take_turn()
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]
        except BaseException:
            self._end_turn()
            raise

    def _commit(self) -> Any:
        try:
            return super()._commit()  # type: ignore[misc]
        finally:
            self._end_turn()

    def _rollback(self) -> Any:
        try:
            return super()._rollback()  # type: ignore[misc]
        finally:
            self._end_turn()

    def _close(self) -> Any:
        try:
            return super()._close()  # type: ignore[misc]
        finally:
            self._end_turn()
            if self._turn_fd is not None:
                os.close(self._turn_fd)
                self._turn_fd = None
