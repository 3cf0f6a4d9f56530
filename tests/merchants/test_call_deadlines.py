"""A call to a merchant's endpoint ends at its deadline, and so does its connection, however
slowly the endpoint drips what it sends: the TLS handshake (which Python's ssl module bounds as a
whole too) or the answer's head, which only the connection's deadline bounds
(merchants/client.py, kernel/socket_deadlines.py). Against a dripping peer on loopback; the head
is also the canary of the connection's hook into urllib3 (`_Bounded._new_conn`)."""

import base64
import threading
import time

import pytest

from merchants.client import post_signed
from tests.support.dripping import Dripping
from tests.support.worker import wait_until

SECRET = "whsec_" + base64.b64encode(b"s" * 24).decode()
TIMEOUT_S = 1.0


def running(msg_id: str) -> bool:
    """Whether the thread of the call sending `msg_id` still runs (merchants/client.py)."""
    return any(thread.name == f"merchant-call {msg_id}" for thread in threading.enumerate())


@pytest.mark.parametrize(("part", "scheme"), [("handshake", "https"), ("head", "http")])
def test_a_call_to_a_dripping_endpoint_ends_at_its_deadline_and_so_does_its_connection(
    loopback, part, scheme
):
    msg_id = f"msg_drip_{part}"
    with Dripping(part) as peer:
        started = time.monotonic()
        answer = post_signed(
            url=peer.url(scheme, "/agent"),
            secret=SECRET,
            msg_id=msg_id,
            body=b"{}",
            timeout=TIMEOUT_S,
        )
        took = time.monotonic() - started
        # The connection is shut down at the deadline, and the thread that read it ends: before,
        # both went on for as long as the peer dripped (each byte within the read timeout).
        wait_until(lambda: peer.open == 0, timeout=3, what="the connection to be shut down")
        wait_until(lambda: not running(msg_id), timeout=3, what="the call's thread to end")

    assert peer.served == 1
    assert answer.status_code is None
    assert took < TIMEOUT_S + 0.5
