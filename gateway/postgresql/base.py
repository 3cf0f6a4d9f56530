"""PostgreSQL, with a health check of a kept connection that costs no round trip.

Django checks a kept connection before its first query of each request (CONN_HEALTH_CHECKS) by
sending `SELECT 1`, and Django's own pool checks each connection it hands out with a query as
well: a card lookup, or each step of a recommend, then waits twice for the server's process to
be scheduled, which on a busy machine is what the latency of a burst waits on
(docs/data.md#database-connections, figures in docs/benchmarks.md). A server that ends a
connection (a restart, an idle timeout, an administrator) tells the client so before it closes
the socket, and a closed socket is readable too. So an idle connection whose socket has nothing
to read is taken as usable at once; one that has something to read, or is not idle, gets
Django's `SELECT 1`, which reads what the server sent and fails if it was a farewell. A
connection lost without a word (a cable pulled) fails its first query, as it would have failed
`SELECT 1`.

It looks with `poll`, which takes any file descriptor: a web worker holding a thousand clients'
sockets opens its database connections past descriptor 1024, where `select.select` refuses to
look. tests/gateway/test_postgresql_health.py holds its canary: the Django internals it relies
on, as they were when it was written.
"""

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status == pq.TransactionStatus.IDLE:
            try:
                poller = select.poll()
                poller.register(connection.fileno(), select.POLLIN)
                readable = poller.poll(0)
            except (OSError, ValueError):  # the socket is gone
                return False
            if not readable:
                return True
        return bool(super().is_usable())
