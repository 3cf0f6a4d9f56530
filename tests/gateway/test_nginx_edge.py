"""The edge of the shipped nginx (ops/nginx/nginx.conf) and what the site (ops/nginx/gateway.conf)
answers of its own, in front of two web roles: the edge closes a client's connections past its
share before reading a byte of them, so one address holding every connection it can, half a
request head on each and opening them again as they close, leaves another address served; the
main settings hold what the edge admits; an IPv6 /64 is one client to the edge and to the site;
nginx's own answers are the gateway's error envelope. Every figure is the files' own. Each client
is a loopback address of its own; an IPv6 client is named by the PROXY protocol, to the edge on
a port the test adds for it, and to the site on its own socket, as the edge names it there."""

import re
import socket
import time
from collections.abc import Iterator

import orjson
import pytest

from tests.support.nginx import MAIN, SITE, Nginx, ask, connect
from tests.support.sockets import Flood, open_files, read_until_closed
from tests.support.web import WebServer

pytestmark = pytest.mark.django_db(transaction=True)

EDGE_PER_CLIENT = int(re.findall(r"limit_conn gateway_edge_per_client (\d+);", MAIN.read_text())[0])
EDGE_TOTAL = int(re.findall(r"limit_conn gateway_edge_total (\d+);", MAIN.read_text())[0])
PER_CLIENT = int(re.findall(r"limit_conn gateway_per_client (\d+);", SITE.read_text())[0])
SITE_TOTAL = int(re.findall(r"limit_conn gateway_total (\d+);", SITE.read_text())[0])
KEPT_ALIVE = int(re.findall(r"^\s*keepalive (\d+);", SITE.read_text(), re.MULTILINE)[0])
HALF_A_HEAD = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Half: "


@pytest.fixture(scope="module")
def edge(tmp_path_factory, roles: list[WebServer]) -> Iterator[Nginx]:
    """The shipped files as they are, in front of the roles."""
    addresses = [f"127.0.0.1:{role.port}" for role in roles]
    with Nginx(tmp_path_factory.mktemp("edge"), addresses) as server:
        yield server


def test_one_address_holding_1600_half_sent_heads_leaves_another_served_20_of_20(edge):
    with open_files(1_700), Flood(edge.port, ["127.0.1.1"], 1_600, sent=HALF_A_HEAD):
        answers = []
        for _ in range(20):  # over 12 s: past two header timeouts, the flood's heads re-sent
            answers.append(ask(edge, "/healthz", "127.0.1.2").status)
            time.sleep(0.6)
    log = edge.log()

    assert answers == [200] * 20
    assert 'limiting connections by zone "gateway_edge_per_client"' in log
    assert "worker_connections are not enough" not in log


def test_the_edge_closes_a_clients_connection_past_its_share_before_reading_it(edge):
    held = [connect(edge, "127.0.1.3") for _ in range(EDGE_PER_CLIENT)]
    try:
        time.sleep(0.5)  # each one counted
        with connect(edge, "127.0.1.3") as extra:
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            try:
                refused = read_until_closed(extra)
            except ConnectionResetError:
                refused = b""
        other = ask(edge, "/healthz", "127.0.1.4")
    finally:
        for sock in held:
            sock.close()

    assert refused == b""  # closed, its request never read
    assert other.status == 200


def test_nginxs_main_settings_hold_everything_the_edge_admits():
    main = MAIN.read_text()
    (connections,) = re.findall(r"^\s*worker_connections (\d+);", main, re.MULTILINE)
    (files,) = re.findall(r"^\s*worker_rlimit_nofile (\d+);", main, re.MULTILINE)

    # An admitted connection is three of a worker's (the client's, the edge's to the site, the
    # site's end of it), and a request in flight one more (the site's to a role, kept alive
    # between requests too). One worker alone holds all the edge admits.
    most = 3 * EDGE_TOTAL + SITE_TOTAL + KEPT_ALIVE
    assert most < int(connections) <= int(files)
    assert EDGE_PER_CLIENT < EDGE_TOTAL


def as_client(edge: Nginx, client: str) -> socket.socket:
    """A connection to the edge from `client`, any address, named by the PROXY protocol on the
    edge's port for tests: the edge counts it as that client's."""
    sock = socket.create_connection(("127.0.0.1", edge.proxied_port), 5)
    family = "TCP6" if ":" in client else "TCP4"
    server = "::1" if family == "TCP6" else "127.0.0.1"
    sock.sendall(f"PROXY {family} {client} {server} 40000 80\r\n".encode())
    return sock


def test_the_addresses_of_one_ipv6_64_are_one_client_at_the_edge(edge):
    one_host = [f"2001:db8:e:3:{n:x}::1" for n in range(EDGE_PER_CLIENT + 1)]
    held = [as_client(edge, address) for address in one_host[:EDGE_PER_CLIENT]]
    try:
        time.sleep(0.5)  # each one counted
        get = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        with as_client(edge, one_host[-1]) as same_host:
            same_host.sendall(get)
            try:
                refused = read_until_closed(same_host)
            except ConnectionResetError:
                refused = b""
        with as_client(edge, "2001:db8:e:4::1") as neighbour:
            neighbour.sendall(get)
            served = read_until_closed(neighbour)
    finally:
        for sock in held:
            sock.close()

    assert refused == b""  # another address of the /64: closed, its request never read
    assert served.startswith(b"HTTP/1.1 200 ")


def client_maps() -> list[list[str]]:
    """The map of each file that names a client (an IPv4 address or an IPv6 /64), its lines."""
    found = []
    for path in (MAIN, SITE):
        (body,) = re.findall(
            r"map \$binary_remote_addr \$gateway_client \{\n(.*?)\n\s*\}",
            path.read_text(),
            re.DOTALL,
        )
        found.append([line.strip() for line in body.splitlines()])
    return found


def test_the_edge_and_the_site_know_a_client_alike():
    edge_map, site_map = client_maps()

    assert edge_map == site_map
    assert len(edge_map) == 3


def proxied(edge: Nginx, client: str, request: bytes) -> socket.socket:
    """A connection to the site as the edge makes one: the client named first, then what it
    sent (the PROXY protocol, version 1)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.connect(str(edge.socket_path))
    family = "TCP6" if ":" in client else "TCP4"
    server = "::1" if family == "TCP6" else "127.0.0.1"
    sock.sendall(f"PROXY {family} {client} {server} 40000 80\r\n".encode() + request)
    return sock


def in_flight(edge: Nginx, client: str) -> socket.socket:
    """A request of `client` being served: its body still to come, once nginx asked for it."""
    sock = proxied(
        edge,
        client,
        b"POST /v1/intents HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
        b"Content-Type: application/json\r\nExpect: 100-continue\r\n\r\n",
    )
    assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")  # counted in flight now
    return sock


def test_the_addresses_of_one_ipv6_64_are_one_client_of_the_site(edge):
    one_host = [f"2001:db8:e:1:{n:x}::1" for n in range(PER_CLIENT + 1)]
    held = [in_flight(edge, address) for address in one_host[:PER_CLIENT]]
    try:
        get = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        with proxied(edge, one_host[-1], get) as same_host:
            refused = read_until_closed(same_host)
        with proxied(edge, "2001:db8:e:2::1", get) as neighbour:
            served = read_until_closed(neighbour)
    finally:
        for sock in held:
            sock.close()

    assert refused.startswith(b"HTTP/1.1 429 ")
    assert served.startswith(b"HTTP/1.1 200 ")


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nNo colon here\r\n\r\n", 400, "bad_request"),
        (b"GET /healthz HTTP/1.1\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n", 400, "bad_request"),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", 414, "uri_too_long"),
    ],
    ids=["malformed", "field-too-large", "target-too-long"],
)
def test_what_nginx_cannot_read_is_answered_in_the_gateways_envelope(
    edge, request_bytes, status, code
):
    with connect(edge, "127.0.1.5") as sock:
        sock.sendall(request_bytes)
        answer = read_until_closed(sock)
    head, _, body = answer.partition(b"\r\n\r\n")

    assert head.startswith(f"HTTP/1.1 {status} ".encode())
    assert b"\r\nContent-Type: application/json\r\n" in head
    assert orjson.loads(body)["error"] == code


def test_nginxs_own_pages_are_never_served_to_a_client(edge):
    answer = ask(edge, "/.errors/throttled", "127.0.1.8")

    # The page an error of nginx's is answered with is nginx's alone: asked for, it is not found,
    # in the gateway's envelope too.
    assert answer.status == 404
    assert answer.json() == {
        "error": "not found",
        "message": "The requested resource does not exist.",
    }


def test_a_role_nginx_cannot_reach_or_that_does_not_answer_is_the_gateways_envelope(tmp_path):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # takes connections, never answers
    dead_port = socket.socket()
    dead_port.bind(("127.0.0.1", 0))  # nothing listens there
    silent_at = f"127.0.0.1:{silent.getsockname()[1]}"
    dead_at = f"127.0.0.1:{dead_port.getsockname()[1]}"
    (tmp_path / "dead").mkdir()
    (tmp_path / "silent").mkdir()
    try:
        with Nginx(tmp_path / "dead", [dead_at]) as unreachable:
            refused = ask(unreachable, "/healthz", "127.0.1.6")
        with Nginx(tmp_path / "silent", [silent_at], proxy_read_timeout="1s") as slow:
            timed_out = ask(slow, "/healthz", "127.0.1.7")
    finally:
        silent.close()
        dead_port.close()

    assert refused.status == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["error"] == "service_unavailable"
    assert timed_out.status == 504
    assert timed_out.json()["error"] == "gateway_timeout"
