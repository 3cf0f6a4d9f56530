"""Liveness and readiness, with real dependencies and real failures (a closed port)."""

import socket

import pytest


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_healthz_answers_without_touching_dependencies(client):
    # No django_db mark: any database access here would fail the test.
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_reports_each_dependency_ready(client):
    response = client.get("/readyz")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert set(body["checks"]) == {"database", "cache", "broker"}
    assert all(check["ok"] and check["error"] is None for check in body["checks"].values())


@pytest.mark.django_db
def test_readyz_is_503_when_the_broker_is_down(client, settings, closed_port):
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed_port}/0"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}

    response = client.get("/readyz")

    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["broker"]["error"]
    assert str(closed_port) not in response.content.decode()
    assert body["checks"]["database"]["ok"] is True


@pytest.mark.django_db
def test_readyz_is_503_when_the_cache_is_down(client, settings, closed_port):
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port}/0",
        }
    }

    response = client.get("/readyz")

    assert response.status_code == 503
    assert response.json()["checks"]["cache"]["ok"] is False
