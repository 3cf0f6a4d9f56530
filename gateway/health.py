"""Liveness (`/healthz`) and readiness (`/readyz`: database, cache, broker) of the gateway."""

import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from kombu import Connection
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class ReadinessCheckSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    latency_ms = serializers.FloatField()
    error = serializers.CharField(allow_null=True, help_text="The failure's class, when any.")


class ReadinessSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ready", "unavailable"])
    checks = serializers.DictField(child=ReadinessCheckSerializer())


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _cache() -> None:
    cache.set("readyz", "1", timeout=10)
    if cache.get("readyz") != "1":
        raise RuntimeError("cache did not return what was written")


def _broker() -> None:
    options = dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
    with Connection(
        settings.CELERY_BROKER_URL, connect_timeout=2, transport_options=options
    ) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)


def _run(check: Callable[[], None]) -> dict[str, Any]:
    started = time.perf_counter()
    error = None
    try:
        check()
    except Exception as exc:  # any failure means "not ready"; the class names it without secrets
        error = type(exc).__name__
    latency_ms = round((time.perf_counter() - started) * 1000, 2)
    return {"ok": error is None, "latency_ms": latency_ms, "error": error}


class LivenessView(APIView):
    @extend_schema(
        operation_id="healthz",
        summary="Liveness: the process answers",
        tags=["operations"],
        responses={200: inline_serializer("Liveness", {"status": serializers.CharField()})},
    )
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


class ReadinessView(APIView):
    @extend_schema(
        operation_id="readyz",
        summary="Readiness: database, cache and broker answer",
        tags=["operations"],
        responses={200: ReadinessSerializer, 503: ReadinessSerializer},
    )
    def get(self, request: Request) -> Response:
        checks = {"database": _run(_database), "cache": _run(_cache), "broker": _run(_broker)}
        ready = all(check["ok"] for check in checks.values())
        return Response(
            {"status": "ready" if ready else "unavailable", "checks": checks},
            status=200 if ready else 503,
        )
