"""`manage.py check_engine`: ask the configured intent engine to resolve one sample intent and
show what it answered and what the gateway reads in it. For setting up a provider: it calls the
engine directly (no cache, no circuit breaker) and says what is wrong when it fails.

The time it reports is the engine's round trip alone: loading litellm and what litellm builds on
a process's first call take seconds, and are paid first, timed apart, by a rehearsal against an
answer the command gives itself on loopback (as the web role's warm-up does,
matching/engine/warm_up.py)."""

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import orjson
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.search import catalog_categories
from matching.engine import client as engine
from matching.engine import process as engine_process
from matching.engine.resolution import Unreadable, messages_for, parse

SAMPLE = "waterproof trail running shoes under $120"


class Command(BaseCommand):
    help = "Resolve a sample intent through the configured intent engine and show the answer."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--intent", default=SAMPLE, help=f'the shopper\'s words ("{SAMPLE}")')

    def handle(self, *args: Any, intent: str, **options: Any) -> None:
        if not engine.is_configured():
            raise CommandError(
                "No intent engine is configured: set INTENT_ENGINE_MODEL (and, as the provider "
                "needs, INTENT_ENGINE_API_KEY and INTENT_ENGINE_API_BASE); see docs/engine.md."
            )
        self.stdout.write(
            f"Engine: {settings.INTENT_ENGINE_MODEL}"
            f" | API base: {settings.INTENT_ENGINE_API_BASE or 'the provider default'}"
            f" | key: {'set' if settings.INTENT_ENGINE_API_KEY else 'none'}"
            f" | timeout {settings.INTENT_ENGINE_TIMEOUT_S:g} s"
        )
        categories = catalog_categories()
        started = time.monotonic()
        rehearse()
        self.stdout.write(f"litellm loaded in {time.monotonic() - started:.2f} s")
        self.stdout.write(f"Asking: {intent!r} ({len(categories)} catalog categories offered)")
        started = time.monotonic()
        try:
            answer = engine.call(messages_for(intent, categories)).content
        except engine.Failure as failure:
            raise CommandError(
                f"The engine did not answer: {failure.detail}. {_hint(failure.cause)}"
            ) from None
        elapsed = time.monotonic() - started
        self.stdout.write(f"The engine answered in {elapsed:.2f} s:\n{answer.strip()}\n")
        try:
            resolution = parse(answer, text=intent, categories=categories)
        except Unreadable as exc:
            raise CommandError(
                f"The answer is not a resolution ({exc}): the model must answer one JSON object "
                "with the keys listed in docs/engine.md. A larger model, or one that supports "
                "JSON output, usually does."
            ) from None
        read = orjson.dumps(asdict(resolution), option=orjson.OPT_INDENT_2).decode()
        self.stdout.write(f"The gateway reads it as:\n{read}\n")
        if not resolution.keywords:
            self.stdout.write(self.style.WARNING("No keywords: recommend would find nothing."))
        self.stdout.write(self.style.SUCCESS("The engine works: GET /v1/recommend will use it."))


def rehearse() -> None:
    """Load litellm and have it build what a first call builds, with one call to a loopback
    answer. A provider that does not speak the OpenAI API fails it, quietly: then its first
    call's set-up stays in the engine's time."""
    litellm = engine.load_litellm()
    with _sample_answer() as api_base, contextlib.suppress(Exception):
        litellm.completion(
            **engine.completion_kwargs(messages_for("rehearsal", []))
            | {"api_base": api_base, "api_key": "rehearsal", "timeout": 10}
        )


class _SampleAnswer(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = orjson.dumps(engine_process.SAMPLE_COMPLETION)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the command's output is its report


@contextlib.contextmanager
def _sample_answer() -> Iterator[str]:
    """An OpenAI-compatible API base on loopback that answers every completion with a sample."""
    server = HTTPServer(("127.0.0.1", 0), _SampleAnswer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


HINTS = {
    "connection refused": "Is the server running, and is INTENT_ENGINE_API_BASE right (an "
    "OpenAI-compatible server's ends in /v1)?",
    "timeout": "The model took longer than INTENT_ENGINE_TIMEOUT_S. A local model loads on its "
    "first call: try again, or raise the timeout.",
    "HTTP 401": "The provider refused the key: check INTENT_ENGINE_API_KEY.",
    "HTTP 404": "The provider does not know the model, or the API base is wrong: check "
    "INTENT_ENGINE_MODEL and INTENT_ENGINE_API_BASE.",
}
HINTS["connection failed"] = HINTS["name lookup failed"] = HINTS["connection refused"]
HINTS["HTTP 403"] = HINTS["HTTP 401"]


def _hint(cause: str) -> str:
    return HINTS.get(cause, "See docs/engine.md.")
