"""WEB_CLIENT_BOUNDS: the web worker bounds its clients itself (gateway/web_worker.py) where no
proxy stands in front of it, and serves uvicorn's own protocol behind nginx (ops/nginx/), whose
bounds tests/gateway/test_nginx.py shows."""

import os

from gunicorn.config import Config
from gunicorn.glogging import Logger

from gateway import web_config
from gateway.web_worker import GatewayHttpProtocol, GatewayWorker


def a_worker() -> GatewayWorker:
    cfg = Config()
    return GatewayWorker(0, os.getpid(), [], None, 30, cfg, Logger(cfg))


def test_with_client_bounds_on_the_worker_serves_its_own_protocol(monkeypatch):
    monkeypatch.setattr(web_config, "CLIENT_BOUNDS", True)
    monkeypatch.setattr(GatewayHttpProtocol, "limits", GatewayHttpProtocol.limits)  # restored

    worker = a_worker()

    assert worker.config.http is GatewayHttpProtocol
    assert GatewayHttpProtocol.limits.per_client == web_config.MAX_CONNECTIONS_PER_CLIENT


def test_with_client_bounds_off_the_worker_serves_uvicorns_own_protocol(monkeypatch):
    monkeypatch.setattr(web_config, "CLIENT_BOUNDS", False)
    limits = GatewayHttpProtocol.limits

    worker = a_worker()

    # uvicorn_worker's own choice: uvicorn picks its httptools protocol, with none of the bounds.
    assert worker.config.http == "auto"
    assert GatewayHttpProtocol.limits is limits
