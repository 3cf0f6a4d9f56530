"""The web role's worker (`--worker-class gateway.web_worker.GatewayWorker`): uvicorn_worker's
uvicorn worker, serving the gateway's HTTP protocol (gateway/web_protocol.py), which bounds what
a client can hold of a worker, while WEB_CLIENT_BOUNDS is on.

These bounds are for a role that clients reach themselves: `make run`, or any deployment without
a proxy in front (WEB_CLIENT_BOUNDS=true, the default). Behind nginx (ops/nginx/), which bounds
each client itself, WEB_CLIENT_BOUNDS=false leaves uvicorn's own protocol in place: every
connection then comes from the proxy, which the protocol would count as one client and refuse
past a client's share (docs/proxy.md#which-deployment-bounds-clients-where).
"""

import logging
import sys
from typing import Any

from uvicorn_worker import UvicornWorker

from gateway import web_config
from gateway.web_protocol import GatewayHttpProtocol, Limits
from gateway.web_refusals import WithoutUvicornsRefusal


class GatewayWorker(UvicornWorker):
    """uvicorn_worker's worker, serving with GatewayHttpProtocol under gunicorn's settings while
    WEB_CLIENT_BOUNDS is on; with it off, uvicorn_worker's worker as it is.

    Neither serves websockets: the gateway has none, and uvicorn hands an upgraded connection to
    another protocol, out of the reach of every bound (and of its client's share of the
    connections, which the connection would then hold for ever). A request asking for an upgrade
    is served as plain HTTP."""

    CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, "ws": "none"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn's two lines for each request asking for an upgrade: for an operator, nothing to
        # do; for a client, a way to fill the log (gateway/web_refusals.py).
        logging.getLogger("uvicorn.error").addFilter(WithoutUvicornsRefusal())
        if not web_config.CLIENT_BOUNDS:
            return
        cfg = self.cfg
        # One worker a process: the protocol's class holds the limits. gunicorn reads 0 as no
        # limit on a request line or a field.
        GatewayHttpProtocol.limits = Limits(
            connections=cfg.worker_connections,
            per_client=web_config.MAX_CONNECTIONS_PER_CLIENT,
            header_timeout_s=web_config.HEADER_TIMEOUT_S,
            body_timeout_s=web_config.BODY_TIMEOUT_S,
            send_timeout_s=web_config.SEND_TIMEOUT_S,
            request_line=cfg.limit_request_line or sys.maxsize,
            field_size=cfg.limit_request_field_size or sys.maxsize,
            fields=cfg.limit_request_fields,
        )
        self.config.http = GatewayHttpProtocol
