"""A real nginx for the tests (Debian's `nginx` and `libnginx-mod-stream` packages): the
repository's main configuration (ops/nginx/nginx.conf, with the edge) and site
(ops/nginx/gateway.conf) rendered for a test's web roles, the edge on a free loopback port, as a
standalone server whose pid, logs, sockets and temporary files stay in the test's directory.
What is rendered is only where things are (ports, paths, the roles' addresses, the user);
every bound is the files' own unless a test names a directive to lower.

Without the binary or its stream module the tests that need them skip, with the reason; where
GATEWAY_NGINX_TESTS=require (.ci/run sets it, as it installs the packages) they fail.
"""

import contextlib
import http.client
import os
import pwd
import re
import socket
import subprocess
from pathlib import Path

import pytest

from tests.support.network import free_port, stop
from tests.support.web import Answer
from tests.support.worker import ROOT, wait_until

REQUIRE = "GATEWAY_NGINX_TESTS"
WAIT_S = 5  # how long a client waits for nginx: past the lowered header timeouts of the tests
BINARY = Path("/usr/sbin/nginx")
STREAM_MODULE = Path("/usr/lib/nginx/modules/ngx_stream_module.so")
MAIN = ROOT / "ops" / "nginx" / "nginx.conf"
SITE = ROOT / "ops" / "nginx" / "gateway.conf"
SITE_SOCKET = "/run/nginx-gateway.sock"
UPSTREAM = re.compile(r"^(upstream gateway_web \{\n)((?:    server \S+;\n)+)", re.MULTILINE)


def binary() -> str:
    """The path of nginx; skips the test without it or its stream module (fails it where
    GATEWAY_NGINX_TESTS=require)."""
    missing = [path for path in (BINARY, STREAM_MODULE) if not path.exists()]
    if not missing:
        return str(BINARY)
    reason = f"{missing[0]} not found (apt-get install nginx libnginx-mod-stream)"
    if os.environ.get(REQUIRE) == "require":
        pytest.fail(f"{reason}, and {REQUIRE}=require", pytrace=False)
    pytest.skip(reason)


def directive(site: str, name: str, value: str) -> str:
    """`site` with the value of its one `name` directive replaced."""
    changed, count = re.subn(rf"^([ \t]*{name}) [^;]+;", rf"\1 {value};", site, flags=re.MULTILINE)
    assert count == 1, f"{SITE} has {count} `{name}` directives, not one"
    return changed


def replaced(text: str, old: str, new: str, path: Path) -> str:
    """`text` with its one `old` replaced by `new`."""
    assert text.count(old) == 1, f"{path} has {text.count(old)} of {old!r}, not one"
    return text.replace(old, new)


def rendered_site(directory: Path, *, socket_path: Path, roles: list[str], **values: str) -> Path:
    """The repository's site listening on `socket_path` for the edge, in front of the web roles
    at `roles` (host:port), its access log in `directory`, with `values` in place of its own for
    the directives they name (client_header_timeout="1s")."""
    site = SITE.read_text()
    servers = "".join(f"    server {role};\n" for role in roles)
    site, count = UPSTREAM.subn(lambda match: match[1] + servers, site)
    assert count == 1, f"{SITE} has no upstream gateway_web with its servers first"
    site = replaced(
        site, f"unix:{SITE_SOCKET} proxy_protocol", f"unix:{socket_path} proxy_protocol", SITE
    )
    site = directive(site, "access_log", f"{directory / 'access.log'} gateway")
    for name, value in values.items():
        site = directive(site, name, value)
    path = directory / "gateway.conf"
    path.write_text(site)
    return path


def rendered_main(
    directory: Path, *, port: int, socket_path: Path, site: Path, proxied_port: int | None = None
) -> Path:
    """The repository's main configuration, in the foreground, its edge on 127.0.0.1:`port`
    (and [::1]:`port`) handing connections to the site at `socket_path`, serving `site` alone,
    as the user running the test, with everything nginx writes in `directory`. With
    `proxied_port`, the edge also listens there for connections that name their client first
    (the PROXY protocol): how a test is an IPv6 client of its choosing at the edge, which
    counts it as it counts any client."""
    main = MAIN.read_text()
    # As root, nginx's workers would run as www-data, who cannot enter the test's directory.
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
    temp = "\n".join(
        f"    {kind}_temp_path {directory / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    ipv6 = (
        f"listen [::1]:{port};" if socket.has_ipv6 and Path("/proc/net/if_inet6").exists() else ""
    )
    proxied = (
        f"\n        listen 127.0.0.1:{proxied_port} proxy_protocol;"
        "\n        set_real_ip_from 127.0.0.1;"
        if proxied_port is not None
        else ""
    )
    for old, new in [
        ("user www-data;", f"daemon off;\n{user}"),
        ("pid /run/nginx.pid;", f"pid {directory / 'nginx.pid'};"),
        ("error_log /var/log/nginx/error.log;", f"error_log {directory / 'error.log'} info;"),
        ("include /etc/nginx/modules-enabled/*.conf;", f"load_module {STREAM_MODULE};"),
        ("listen 80;", f"listen 127.0.0.1:{port};{proxied}"),
        ("listen [::]:80;", ipv6),
        (f"proxy_pass unix:{SITE_SOCKET};", f"proxy_pass unix:{socket_path};"),
        ("access_log /var/log/nginx/access.log;", f"access_log {directory / 'other.log'};"),
        ("include /etc/nginx/conf.d/*.conf;", temp),
        ("include /etc/nginx/sites-enabled/*;", f"include {site};"),
    ]:
        main = replaced(main, old, new, MAIN)
    path = directory / "nginx.conf"
    path.write_text(main)
    return path


class Nginx:
    """nginx with the repository's site in front of `roles`, on a free loopback port, until
    the block ends; `values` replace the site's own for the directives they name."""

    def __init__(self, directory: Path, roles: list[str], **values: str) -> None:
        self.directory = directory
        self.port = free_port()
        self.socket_path = directory / "site.sock"
        self.proxied_port = free_port()
        site = rendered_site(directory, socket_path=self.socket_path, roles=roles, **values)
        main = rendered_main(
            directory,
            port=self.port,
            socket_path=self.socket_path,
            site=site,
            proxied_port=self.proxied_port,
        )
        self.command = [binary(), "-p", f"{directory}/", "-c", str(main)]
        self.command += ["-e", str(directory / "error.log")]
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "Nginx":
        self.process = subprocess.Popen(  # noqa: S603 - the binary of Debian's package
            self.command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_until(self.listening, timeout=30, what="nginx to listen")
        return self

    def listening(self) -> bool:
        assert self.process is not None
        assert self.process.poll() is None, f"nginx stopped:\n{self.log()}"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port)):
            return True
        return False

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        stop(self.process)

    def log(self) -> str:
        """nginx's error log."""
        path = self.directory / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def access_log(self) -> str:
        path = self.directory / "access.log"
        return path.read_text(errors="replace") if path.exists() else ""


def ask(proxy: Nginx, path: str, client: str, headers: dict[str, str] | None = None) -> Answer:
    """GET `path` through nginx from the loopback address `client`."""
    conn = http.client.HTTPConnection("127.0.0.1", proxy.port, WAIT_S, (client, 0))
    try:
        conn.request("GET", path, headers={"Host": "localhost", **(headers or {})})
        response = conn.getresponse()
        return Answer(
            response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        )
    finally:
        conn.close()


def connect(proxy: Nginx, client: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", proxy.port), WAIT_S, (client, 0))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_head(sock: socket.socket) -> bytes:
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65_536)
        assert chunk, f"closed after {received!r}"
        received += chunk
    return received
