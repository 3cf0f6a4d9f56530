"""The one way the gateway calls a merchant agent: a signed POST, SSRF-safe and bounded.

Merchant endpoints are attacker-controlled URLs. Before every request the endpoint is checked
again (https, no credentials, public addresses only: DNS may have changed since registration),
and the request goes to the very address the check judged (pinned: no second lookup, so no
rebinding in between), under the URL's host name (Host header, TLS SNI and certificate). The
connection refuses a private address on its own too, and no redirect is ever followed
(requests-hardened). Proxies from the environment are ignored, so none can bypass the filter.
Only the first kilobyte of an answer is read.

One call takes at most `timeout` seconds in all, however slowly the merchant drips its answer:
its connection is shut down at the deadline whatever it waits for, the TLS handshake, the
answer's head or its body (kernel/socket_deadlines.py), and the request runs in a thread of its
own, which the caller stops waiting for at the deadline (should the endpoint's DNS lookup, the
one wait outside the connection, take longer).
"""

import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import requests
from django.conf import settings
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict
from requests_hardened import Config, Manager
from requests_hardened.ip_filter import InvalidIPAddress
from standardwebhooks.webhooks import Webhook
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import HTTPError

from kernel.socket_deadlines import WATCHDOG, Watch
from merchants.endpoints import Destination, Target, endpoint_target, public_address

logger = logging.getLogger(__name__)

EXCERPT_BYTES = 1024
# Signatures in one request at most (merchants naming one URL, signed for together).
MOST_SIGNATURES = 20
USER_AGENT = "IntentGateway-Webhooks/0.2"


@dataclass(frozen=True)
class Answer:
    """What came of one request: the merchant's status code, or why there was none."""

    status_code: int | None
    latency_ms: int
    error: str  # in the gateway's words; empty when the merchant answered 2xx
    excerpt: str = ""  # the start of the merchant's body, for staff only
    timed_out: bool = False  # no answer within the timeout (not a refusal or an error)

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def signature_headers(
    *, secret: str | list[str], msg_id: str, body: bytes, at: datetime
) -> dict[str, str]:
    """Standard Webhooks headers for `body`, signed with the merchant's `whsec_` secret; with
    several secrets, one signature each, space-separated (a receiver accepts the event when one
    of them verifies, as the Standard Webhooks libraries do)."""
    secrets = [secret] if isinstance(secret, str) else secret
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": " ".join(
            Webhook(one).sign(msg_id, at, body.decode()) for one in secrets
        ),
    }


class _Bounded:
    """A urllib3 connection shut down at its `deadline` (time.monotonic(); kernel/
    socket_deadlines.py), watched from the moment its TCP connection is made, before any TLS.
    The deadline comes with the connection's other arguments (the pools of `bounded_pools`).

    It overrides urllib3's `_new_conn`, which is no documented interface but the one place a
    connection's socket exists before its TLS handshake. Python's ssl module bounds a handshake
    as a whole by the socket's timeout; nothing but the deadline bounded an answer's head
    dripped a byte at a time, which held the thread for as long as the peer liked. The canary
    is tests/merchants/test_call_deadlines.py, whose dripping head fails on the urllib3 upgrade
    that stops calling it."""

    watching: Watch | None = None

    def __init__(self, *args: Any, deadline: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]
        self.watching = WATCHDOG.watch(sock, self.deadline)
        return sock

    def close(self) -> None:
        if self.watching is not None:
            WATCHDOG.forget(self.watching)
            self.watching = None
        super().close()  # type: ignore[misc]


class _BoundedHTTPConnection(_Bounded, HTTPConnection):
    pass


class _BoundedHTTPSConnection(_Bounded, HTTPSConnection):
    pass


class _BoundedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _BoundedHTTPConnection


class _BoundedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _BoundedHTTPSConnection


def bounded_pools(deadline: float) -> dict[str, Callable[..., HTTPConnectionPool]]:
    """Makers of urllib3's pools by scheme, whose connections are shut down at `deadline`: a
    pool hands the arguments it does not take itself to each connection it makes."""

    def http(*args: Any, **kwargs: Any) -> HTTPConnectionPool:
        return _BoundedHTTPPool(*args, deadline=deadline, **kwargs)

    def https(*args: Any, **kwargs: Any) -> HTTPConnectionPool:
        return _BoundedHTTPSPool(*args, deadline=deadline, **kwargs)

    return {"http": http, "https": https}


class PinnedAdapter(HTTPAdapter):
    """Connects to `destination`'s address whatever the URL's host resolves to now; the Host
    header, TLS SNI and the certificate check keep the URL's host name. Uses requests' hook for
    subclasses (build_connection_pool_key_attributes), as requests-hardened's own filter does.
    With a `deadline`, its connections are shut down then (`_Bounded`)."""

    def __init__(self, destination: Destination, deadline: float | None = None) -> None:
        self.destination = destination
        self.deadline = deadline
        super().__init__()  # builds the pool manager: init_poolmanager reads the deadline

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        if self.deadline is not None:
            self.poolmanager.pool_classes_by_scheme = bounded_pools(self.deadline)

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
    ) -> Any:  # requests' own (private) TypedDicts
        params, kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        host_params, pool_kwargs = cast(dict[str, Any], params), cast(dict[str, Any], kwargs)
        address = self.destination.address
        if not (settings.WEBHOOK_ALLOW_PRIVATE_TARGETS or public_address(address)):
            raise InvalidIPAddress(address)
        hostname, port = host_params["host"], host_params["port"]
        host = f"[{hostname}]" if ":" in hostname else hostname
        request.headers = CaseInsensitiveDict(request.headers or {})
        request.headers["Host"] = f"{host}:{port}" if port is not None else host
        if host_params["scheme"] == "https":
            pool_kwargs["assert_hostname"] = pool_kwargs["server_hostname"] = hostname
        host_params["host"] = address
        host_params["port"] = self.destination.port
        return host_params, pool_kwargs


def pinned_session(
    destination: Destination,
    *,
    connect_s: float,
    read_s: float,
    user_agent: str,
    deadline: float | None = None,
) -> requests.Session:
    """A session whose every request goes to `destination`'s address (PinnedAdapter), never
    redirected, through no proxy, each socket operation bounded, and each connection shut down
    at `deadline` (time.monotonic()) whatever it waits for: how the gateway calls any URL an
    outsider chose."""
    session = Manager(
        Config(
            ip_filter_enable=False,  # the pinned adapter checks the address itself
            ip_filter_allow_loopback_ips=False,
            never_redirect=True,
            default_timeout=(connect_s, read_s),
            user_agent_override=user_agent,
        )
    ).get_session()
    session.trust_env = False  # no proxy or .netrc from the environment
    for prefix in ("https://", "http://"):
        session.mount(prefix, PinnedAdapter(destination, deadline))
    return session


def _excerpt(response: requests.Response, deadline: float) -> str:
    """At most EXCERPT_BYTES of the body, read until the deadline; the rest is never read.

    The status code has arrived by now and alone decides the outcome: a body that breaks off or
    stalls leaves a shorter excerpt, never an error.
    """
    data = b""
    try:
        while len(data) < EXCERPT_BYTES and time.monotonic() < deadline:
            chunk = response.raw.read1(EXCERPT_BYTES - len(data))
            if not chunk:
                break
            data += chunk
    except (HTTPError, OSError):
        pass
    # PostgreSQL text holds no NUL; the excerpt is for people, so a replacement char will do.
    return data.decode("utf-8", "replace").replace("\x00", "\ufffd")


def _failure(status_code: int | None) -> str:
    if status_code is None or 200 <= status_code < 300:
        return ""
    if 300 <= status_code < 400:
        return f"The endpoint answered {status_code}, a redirect; redirects are never followed."
    return f"The endpoint answered {status_code}."


def _post(
    target: Target, body: bytes, headers: dict[str, str], timeout: float, started: float
) -> Answer:
    def elapsed_ms() -> int:
        return round((time.monotonic() - started) * 1000)

    assert target.destination is not None  # a target without a problem has one
    url = target.url
    try:
        with (
            pinned_session(
                target.destination,
                connect_s=min(timeout, 5.0),
                read_s=timeout,
                user_agent=USER_AGENT,
                deadline=started + timeout,
            ) as session,
            session.post(url, data=body, headers=headers, stream=True) as response,
        ):
            if time.monotonic() - started >= timeout:  # a head cut short at the deadline
                return Answer(
                    None, elapsed_ms(), f"No answer within {timeout:g} s.", timed_out=True
                )
            excerpt = _excerpt(response, started + timeout)
            code = response.status_code
            return Answer(code, elapsed_ms(), _failure(code), excerpt)
    except InvalidIPAddress:
        error = "Not sent: the endpoint resolved to a private address."
    except requests.Timeout:
        return Answer(None, elapsed_ms(), f"No answer within {timeout:g} s.", timed_out=True)
    except (requests.RequestException, HTTPError, OSError) as exc:
        if time.monotonic() - started >= timeout:  # the connection shut down at its deadline
            return Answer(None, elapsed_ms(), f"No answer within {timeout:g} s.", timed_out=True)
        if isinstance(exc, requests.ConnectionError):
            error = "Could not connect to the endpoint."
        else:
            error = f"The request failed ({type(exc).__name__})."
    return Answer(None, elapsed_ms(), error)


def post_signed(
    *,
    url: str,
    secret: str | list[str],
    msg_id: str,
    body: bytes,
    timeout: float,
    target: Target | None = None,
) -> Answer:
    """POST `body` to a merchant agent, signed; never takes much longer than `timeout` seconds
    and never raises: every failure is an Answer without a status code. `target` is the
    endpoint's check made a moment before (whose destination a bound counted): the request goes
    there; without it, the endpoint is checked here."""
    started = time.monotonic()
    headers = {
        "Content-Type": "application/json",
        **signature_headers(secret=secret, msg_id=msg_id, body=body, at=datetime.now(UTC)),
    }
    answers: list[Answer] = []

    def call() -> None:
        # The endpoint is checked here, in the thread: its DNS lookup is bounded by the deadline.
        checked = target if target is not None and target.url == url else endpoint_target(url)
        if checked.problem:
            answers.append(Answer(None, 0, f"Not sent: the endpoint {checked.problem}."))
        else:
            answers.append(_post(checked, body, headers, timeout, started))

    thread = threading.Thread(target=call, name=f"merchant-call {msg_id}", daemon=True)
    thread.start()
    thread.join(timeout)
    answer = answers[0] if answers else None
    if answer is None:
        answer = Answer(
            None, round(timeout * 1000), f"No answer within {timeout:g} s.", timed_out=True
        )
    if not answer.ok:
        logger.info("merchant call %s failed: %s", msg_id, answer.error)
    return answer
