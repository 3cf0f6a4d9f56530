"""UCP platforms' own profiles, served on loopback by a real HTTP server that the gateway
fetches (agents/ucp/platforms.py); each platform's profile at a path of its own, its fetches
counted."""

import threading
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler
from typing import Any

import orjson

from tests.support.network import LoopbackServer

Served = tuple[int, bytes, dict[str, str]]


class _Handler(BaseHTTPRequestHandler):
    server: "LoopbackServer[PlatformProfiles]"

    def do_GET(self) -> None:
        profiles = self.server.owner
        with profiles.lock:
            profiles.hits[self.path] += 1
            status, body, headers = profiles.documents.get(self.path, (404, b"", {}))
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class PlatformProfiles:
    """Platforms' profiles on loopback, each at a path of its own; counts each one's fetches."""

    def __init__(self) -> None:
        self.documents: dict[str, Served] = {}
        self.hits: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.server = LoopbackServer(_Handler, self)

    def __enter__(self) -> "PlatformProfiles":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def serve(self, body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> str:
        """Serve `body` (with `headers`) at a new path; its URL."""
        path = f"/profiles/{uuid.uuid4().hex}.json"
        with self.lock:
            self.documents[path] = (status, body, headers or {})
        return self.server.url_root + path

    def platform(self, version: str, headers: dict[str, str] | None = None) -> str:
        """A platform's profile declaring `version`; its URL."""
        document = {
            "ucp": {
                "version": version,
                "services": {"dev.ucp.shopping": [{"version": version, "transport": "rest"}]},
                "capabilities": {"dev.ucp.shopping.catalog.search": [{"version": version}]},
                "payment_handlers": {},
            }
        }
        return self.serve(orjson.dumps(document), headers=headers)

    def fetches(self, url: str) -> int:
        with self.lock:
            return self.hits[url.removeprefix(self.server.url_root)]
