"""`make run`'s banner waits for the web role: nothing while its port is closed, the links once
`/healthz` answers, and a word on stderr (no links) when it never does."""

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from tests.support.network import free_port
from tests.support.worker import ROOT

SCRIPT = ROOT / "gateway" / "web_banner.py"


class _Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/healthz" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def web_role(port: int) -> Iterator[None]:
    server = HTTPServer(("127.0.0.1", port), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def banner_script(port: int, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(  # noqa: S603 - the project's own script
        [sys.executable, SCRIPT, "--url", f"http://127.0.0.1:{port}",
         "--base", "https://gw.example", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def test_the_links_are_printed_only_once_the_web_role_answers():
    port = free_port()
    script = banner_script(port)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            script.wait(timeout=1.5)  # nothing listens yet: it waits, and has printed nothing

        with web_role(port):
            out, err = script.communicate(timeout=30)
    finally:
        script.kill()

    assert script.returncode == 0
    assert out.splitlines()[0].startswith("Gateway on https://gw.example ")
    assert "contract https://gw.example/openapi.json" in out
    assert "every entry point: curl https://gw.example/" in out
    assert err == ""


def test_a_web_role_that_never_answers_gets_no_links_but_a_word_on_stderr():
    port = free_port()

    done = subprocess.run(  # noqa: S603 - the project's own script
        [sys.executable, SCRIPT, "--url", f"http://127.0.0.1:{port}",
         "--base", "https://gw.example", "--deadline", "0.5"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip

    assert done.returncode == 1
    assert done.stdout == ""
    assert f"did not answer at http://127.0.0.1:{port}/healthz in 0.5 s" in done.stderr
