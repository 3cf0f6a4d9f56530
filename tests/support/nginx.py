"""A real nginx for the tests (Debian's `nginx` package): the repository's site
(ops/nginx/gateway.conf) rendered for a test's web roles, on a free loopback port, as a
standalone server whose pid, logs and temporary files stay in the test's directory.

Without the binary the tests that need it skip, with the reason; where GATEWAY_NGINX_TESTS=require
(.ci/run sets it, as it installs the package) they fail.
"""

import contextlib
import os
import pwd
import re
import socket
import subprocess
from pathlib import Path

import pytest

from tests.support.network import free_port, stop
from tests.support.worker import ROOT, wait_until

REQUIRE = "GATEWAY_NGINX_TESTS"
BINARY = Path("/usr/sbin/nginx")
SITE = ROOT / "ops" / "nginx" / "gateway.conf"
UPSTREAM = re.compile(r"^(upstream gateway_web \{\n)((?:    server \S+;\n)+)", re.MULTILINE)


def binary() -> str:
    """The path of nginx; skips the test without it (fails it where GATEWAY_NGINX_TESTS=require)."""
    if BINARY.exists():
        return str(BINARY)
    reason = f"{BINARY} not found (apt-get install nginx)"
    if os.environ.get(REQUIRE) == "require":
        pytest.fail(f"{reason}, and {REQUIRE}=require", pytrace=False)
    pytest.skip(reason)


def directive(site: str, name: str, value: str) -> str:
    """`site` with the value of its one `name` directive replaced."""
    changed, count = re.subn(rf"^([ \t]*{name}) [^;]+;", rf"\1 {value};", site, flags=re.MULTILINE)
    assert count == 1, f"{SITE} has {count} `{name}` directives, not one"
    return changed


def rendered_site(directory: Path, *, port: int, roles: list[str], **values: str) -> Path:
    """The repository's site listening on 127.0.0.1:`port` in front of the web roles at
    `roles` (host:port), its access log in `directory`, with `values` in place of its own for
    the directives they name (client_header_timeout="1s")."""
    site = SITE.read_text()
    servers = "".join(f"    server {role};\n" for role in roles)
    site, count = UPSTREAM.subn(lambda match: match[1] + servers, site)
    assert count == 1, f"{SITE} has no upstream gateway_web with its servers first"
    site = directive(site, "listen", f"127.0.0.1:{port}")
    site = directive(site, "access_log", f"{directory / 'access.log'} gateway")
    for name, value in values.items():
        site = directive(site, name, value)
    path = directory / "gateway.conf"
    path.write_text(site)
    return path


def standalone(directory: Path, site: Path) -> Path:
    """A main configuration that serves `site` alone, in the foreground, as the user running
    the test, with everything nginx writes in `directory` (what Debian's nginx.conf is)."""
    temp = "\n".join(
        f"    {kind}_temp_path {directory / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    # As root, nginx's workers would run as `nobody`, who cannot enter the test's directory.
    user = f"user {pwd.getpwuid(os.geteuid()).pw_name};\n" if os.geteuid() == 0 else ""
    path = directory / "nginx.conf"
    path.write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {directory / 'nginx.pid'};\n"
        f"error_log {directory / 'error.log'} info;\n"
        "events {\n    worker_connections 1024;\n}\n"
        f"http {{\n{temp}\n    include {site};\n}}\n"
    )
    return path


class Nginx:
    """nginx with the repository's site in front of `roles`, on a free loopback port, until
    the block ends; `values` replace the site's own for the directives they name."""

    def __init__(self, directory: Path, roles: list[str], **values: str) -> None:
        self.directory = directory
        self.port = free_port()
        site = rendered_site(directory, port=self.port, roles=roles, **values)
        self.command = [binary(), "-p", f"{directory}/", "-c", str(standalone(directory, site))]
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
