"""nginx in front of two web roles: the repository's main configuration (ops/nginx/nginx.conf,
with the edge) and site (ops/nginx/gateway.conf) served by Debian's nginx before two of the
Procfile's `web` roles, as docs/proxy.md deploys them (WEB_CLIENT_BOUNDS=false,
TRUSTED_PROXY_COUNT=1). A client that trickles its request head is cut off at the header
timeout, a client past its share of requests in flight is answered 429 while others are served,
requests are balanced over both roles, the client's address reaches the gateway through
X-Forwarded-For, and the roles themselves no longer bound clients. The header timeout is lowered
for the test; every other figure is the files' own. Each client is a loopback address of its own
(all of 127.0.0.0/8 is loopback), so that nginx counts each apart. The edge, IPv6 clients and
nginx's own answers: tests/gateway/test_nginx_edge.py."""

import contextlib
import http.client
import re
import time
from collections.abc import Iterator

import orjson
import pytest

from tests.support.nginx import SITE, Nginx, ask, connect, read_head
from tests.support.web import WebServer
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

HEADER_TIMEOUT_S = 1
WAIT_S = 5  # far past the lowered header timeout, and no shorter than the site's own
PER_CLIENT = int(re.findall(r"limit_conn gateway_per_client (\d+);", SITE.read_text())[0])


@pytest.fixture(scope="module")
def proxy(tmp_path_factory, roles) -> Iterator[Nginx]:
    addresses = [f"127.0.0.1:{role.port}" for role in roles]
    directory = tmp_path_factory.mktemp("nginx")
    with Nginx(directory, addresses, client_header_timeout=f"{HEADER_TIMEOUT_S}s") as server:
        yield server


def logged(roles: list[WebServer], text: str) -> list[int]:
    """How many times each role's log holds `text`."""
    return [role.log().count(text) for role in roles]


def test_a_client_that_trickles_its_request_head_is_cut_off_at_the_header_timeout(proxy, roles):
    received = b""
    with connect(proxy, "127.0.0.4") as sock:
        opened = time.monotonic()
        sock.sendall(b"GET /healthz?trickled HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # nginx closed it
            while time.monotonic() - opened < WAIT_S:  # a byte every 0.2 s, never the end
                sock.sendall(b"a")
                time.sleep(0.2)
        cut_off_after = time.monotonic() - opened
        with contextlib.suppress(ConnectionResetError):
            received = sock.recv(65_536)

    assert cut_off_after < WAIT_S, "the trickling client was never cut off"
    assert received == b""  # closed without an answer
    wait_until(lambda: " 408 " in proxy.access_log(), timeout=WAIT_S, what="nginx's 408 line")
    assert logged(roles, "trickled") == [0, 0]  # no role saw any of it


def test_a_client_past_its_share_of_requests_in_flight_is_refused_429_while_others_are_served(
    proxy, roles
):
    held = []
    try:
        for _ in range(PER_CLIENT):
            sock = connect(proxy, "127.0.0.2")
            held.append(sock)
            sock.sendall(
                b"POST /v1/intents HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
                b"Content-Type: application/json\r\nExpect: 100-continue\r\n\r\n"
            )
        # nginx asks for a body once it counted its request in flight: each is counted now.
        continued = {read_head(sock).split(b"\r\n", 1)[0] for sock in held}
        refused = ask(proxy, "/healthz", "127.0.0.2")
        other = ask(proxy, "/healthz", "127.0.0.3")
        held.pop().close()
        wait_until(lambda: ask(proxy, "/healthz", "127.0.0.2").status == 200, timeout=WAIT_S)
    finally:
        for sock in held:
            sock.close()

    assert continued == {b"HTTP/1.1 100 Continue"}
    assert refused.status == 429
    # The gateway's envelope and code, as the contract documents a 429, never nginx's page.
    assert refused.headers["content-type"] == "application/json"
    assert refused.json()["error"] == "throttled"
    assert refused.headers["retry-after"] == "1"
    assert other.status == 200
    assert logged(roles, "POST /v1/intents") == [0, 0]  # bodies never sent hold no role


def test_requests_are_balanced_over_both_roles_from_the_clients_address(proxy, roles):
    statuses = [ask(proxy, "/healthz?balanced", "127.0.0.5").status for _ in range(20)]
    # uvicorn's access line: the client as X-Forwarded-For names it, not nginx's address.
    line = '127.0.0.5:0 - "GET /healthz?balanced HTTP/1.1" 200'
    wait_until(lambda: sum(logged(roles, line)) == 20, timeout=WAIT_S, what="20 access lines")

    assert statuses == [200] * 20
    assert logged(roles, line) == [10, 10]  # round robin: every other request


def test_a_forged_x_forwarded_for_through_nginx_buys_no_fresh_throttle_bucket(proxy, roles):
    forged = [
        ask(proxy, "/v1/cards/rec_none", "127.0.0.6", {"X-Forwarded-For": f"198.51.100.{n}"})
        for n in range(3)
    ]
    other = ask(proxy, "/v1/cards/rec_none", "127.0.0.7")

    # cards=2/min per client, counted in the store both roles share, whichever answers.
    assert [answer.status for answer in forged] == [404, 404, 429]
    assert other.status == 404


def test_a_request_target_past_64_kb_is_refused_by_nginx_and_reaches_no_role(proxy, roles):
    answer = ask(proxy, "/v1/cards/rec_" + "a" * 70_000, "127.0.0.8")

    assert answer.status == 414
    assert logged(roles, "rec_aaaa") == [0, 0]


def test_behind_nginx_a_role_serves_a_head_its_own_bounds_would_refuse(roles):
    # 150 header fields: past WEB_MAX_HEADERS (100), which the worker answers 431 while
    # WEB_CLIENT_BOUNDS is on; off, uvicorn's own protocol serves it.
    fields = {f"X-Field-{n}": "x" for n in range(150)}

    answer = roles[0].request("GET", "/healthz", headers=fields)

    assert answer.status == 200


def test_a_body_past_the_limit_is_refused_413_in_the_gateways_envelope(proxy, roles):
    conn = http.client.HTTPConnection("127.0.0.1", proxy.port, WAIT_S, ("127.0.0.6", 0))
    try:
        conn.request("POST", "/v1/intents", body=b"x" * (257 * 1024), headers={"Host": "localhost"})
        response = conn.getresponse()
        status, kind, body = response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()

    assert status == 413
    assert kind == "application/json"
    assert orjson.loads(body)["error"] == "payload_too_large"
    assert logged(roles, "POST /v1/intents") == [0, 0]


def test_the_roles_have_longer_than_the_engine_may_take(settings):
    """nginx never gives up on a role that still waits on the intent engine: its read timeout
    outlasts the longest INTENT_ENGINE_TIMEOUT_S the settings accept."""
    (read,) = re.findall(r"^\s*proxy_read_timeout (\d+)s;", SITE.read_text(), re.MULTILINE)

    assert int(read) > settings.INTENT_ENGINE_TIMEOUT_MAX_S


def test_the_sites_body_limit_is_the_gateways(settings):
    limits = re.findall(r"^\s*client_max_body_size (\d+)k;", SITE.read_text(), re.MULTILINE)

    assert limits == [str(settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024)]
