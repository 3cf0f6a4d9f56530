"""`manage.py check_engine`: ask the configured intent engine to resolve one sample intent and
show what it answered and what the gateway reads in it. For setting up a provider: it calls the
engine directly (no cache, no circuit breaker) and says what is wrong when it fails."""

import time
from dataclasses import asdict
from typing import Any

import orjson
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.search import catalog_categories
from matching.engine import client as engine
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
        self.stdout.write(f"Asking: {intent!r} ({len(categories)} catalog categories offered)")
        started = time.monotonic()
        try:
            answer = engine.call(messages_for(intent, categories)).content
        except engine.Failure as failure:
            raise CommandError(
                f"The engine did not answer: {failure.detail}. {_hint(failure.cause)}"
            ) from None
        self.stdout.write(f"Answered in {time.monotonic() - started:.2f} s:\n{answer.strip()}\n")
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
