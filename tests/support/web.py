"""The gateway served for real: the Procfile's `web` role (gunicorn with uvicorn workers, what
`make run` starts) on a free loopback port, over the test database.

    with WebServer(tmp_path, env={"INTENT_ENGINE_MODEL": ...}) as web:
        web.get("/healthz")
"""

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from tests.support.network import free_port
from tests.support.worker import ROOT, database_url, procfile_command


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return orjson.loads(self.body)


class WebServer:
    """One `web` process group and the log it writes; stopped with its workers on exit."""

    def __init__(
        self, log_dir: Path, *, env: dict[str, str] | None = None, root: Path = ROOT
    ) -> None:
        """`root`: the checkout it runs from (another one is another host's working directory,
        with its own var/)."""
        self.root = root
        self.port = free_port()
        self.log_path = log_dir / f"web-{self.port}.log"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "WEB_CONCURRENCY": "1",
            "THROTTLE_RATES": "off",
            "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
            "WEBHOOK_ALLOW_HTTP": "true",
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
            **(env or {}),
        }
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "WebServer":
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - the Procfile's own command line
                ["/bin/sh", "-c", "exec " + procfile_command("web")],
                cwd=self.root,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(OSError):
                if self.get("/healthz", timeout=5).status == 200:
                    return self
            assert self.process.poll() is None, f"the web server stopped:\n{self.log()}"
            assert time.monotonic() < deadline, f"the web server did not answer:\n{self.log()}"
            time.sleep(0.2)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 30,
    ) -> Answer:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers={"Host": "localhost", **(headers or {})})
            response = conn.getresponse()
            return Answer(
                response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
            )
        finally:
            conn.close()

    @property
    def url(self) -> str:
        """The server's base URL, as its clients would call it."""
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, timeout: float = 30) -> Answer:
        return self.request("GET", path, timeout=timeout)

    def post_json(self, path: str, payload: Any, headers: dict[str, str] | None = None) -> Answer:
        return self.request(
            "POST",
            path,
            orjson.dumps(payload),
            {"Content-Type": "application/json", **(headers or {})},
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
