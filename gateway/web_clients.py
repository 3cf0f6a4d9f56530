"""Who holds a web worker's connections (gateway/web_protocol.py): each client's share, and who
makes room for a newcomer when the worker holds all it may.

A client is an IP address, an IPv6 /64 as one (kernel/clients.py). Each holds at most its share
of a worker's connections (WEB_MAX_CONNECTIONS_PER_CLIENT). Shares alone leave the worker to be
filled by several clients together (20 addresses of 100 connections fill 1,000), so a worker
that holds all it may makes room: the newcomer takes the place of an idle connection (nothing
asked yet, a head still arriving, or kept alive between requests) of the client holding the
most, as long as that client holds more than the newcomer would. Idle places are thus taken
from the largest holders first, and a client that holds few is served while others fill the
worker with connections that ask nothing. Only when every connection of the larger holders is
serving a request is the newcomer refused (503, naming why).
"""

import heapq
from typing import Protocol

from kernel.clients import client_network

# The clients holding the most whose connections a full worker looks through for an idle one: a
# newcomer costs it as many of their connections at most, however many clients hold the rest.
LARGEST = 8


def client_of(address: tuple[str, int] | None) -> str | None:
    """The client a connection from `address` counts against (kernel/clients.py: an IP address,
    or an IPv6 address's /64); None for a Unix socket's peer."""
    return client_network(address[0]) if address else None


class Held(Protocol):
    """What a share needs of a connection."""

    def idleness(self) -> int:
        """0 while a request of it is being served; more the less it is doing (2: nothing)."""
        ...

    def make_room(self) -> None:
        """Close it, for a newcomer."""
        ...


class Shares:
    """The connections of one worker's process, by client."""

    def __init__(self) -> None:
        self.by_client: dict[str, set[Held]] = {}

    def holds(self, client: str) -> int:
        return len(self.by_client.get(client, ()))

    def add(self, client: str, connection: Held) -> None:
        self.by_client.setdefault(client, set()).add(connection)

    def remove(self, client: str, connection: Held) -> None:
        held = self.by_client.get(client)
        if held is not None:
            held.discard(connection)
            if not held:
                del self.by_client[client]

    def room_for(self, client: str | None) -> Held | None:
        """An idle connection whose place a newcomer of `client` may take: one of the clients
        holding the most (the LARGEST of them), among those holding more than `client` would
        once admitted, one that asks nothing rather than one whose head is arriving; None
        when every connection of theirs is serving a request."""
        mine = self.holds(client) if client is not None else 0
        best: Held | None = None
        for held in heapq.nlargest(LARGEST, self.by_client.values(), key=len):
            if len(held) <= mine + 1:
                break
            for connection in held:
                idleness = connection.idleness()
                if idleness == 2:
                    return connection
                if idleness and best is None:
                    best = connection
        return best
