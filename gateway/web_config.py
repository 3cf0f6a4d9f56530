"""gunicorn's configuration of the web role (`gunicorn --config python:gateway.web_config`): the
bounds of a client's connections (below), and two hooks.

The role serves with `--reuse-port`: each worker listens on a socket of its own, all in one
SO_REUSEPORT group, and the kernel spreads connections over them (docs/serving.md). Two hooks
make that safe, and two keep the host's metrics (gateway/metrics_files.py):

- gunicorn opens a worker's socket as it forks the worker, seconds before the worker has loaded
  the application and warmed up; the kernel would hand it connections meanwhile, to wait those
  seconds (a first recommend took 1.4 s beyond the engine instead of 50 ms). `post_fork` gives
  the worker a socket bound to the same address but not listening: uvicorn listens on it once
  the ASGI lifespan's start-up has warmed the worker.
- such a port never refuses another server of the same user: a second `make run`, or an old
  gateway left running, would quietly take part of the connections of the first. `on_starting`
  refuses to start while anything listens on the address.
- with `--reuse-port` the master holds no socket (each worker opens its own as it forks), so
  gunicorn's "Listening at:" line would name no address: `WebLogger` names the bound ones.
- as the role starts, `on_starting` also removes the metrics files of the host's processes that
  no longer run; `child_exit` marks a worker that exited as dead.
"""

import socket
from typing import Any

from gunicorn.glogging import Logger

from gateway import metrics_files
from gateway.environment import bounded, bounded_int, env, switch
from gateway.logging_settings import gunicorn_logging, log_format

# Whether the role's worker bounds what one client may hold of it (gateway/web_worker.py): on
# where clients reach the role itself (`make run`), off behind a proxy that bounds them
# (ops/nginx/gateway.conf), whose connections the worker would count as one client's
# (docs/proxy.md#which-deployment-bounds-clients-where).
CLIENT_BOUNDS = switch("WEB_CLIENT_BOUNDS", True)

# What one client may hold of a web worker while CLIENT_BOUNDS is on (gunicorn's own settings,
# which the role's worker, gateway/web_worker.py, honours; gunicorn's command-line flags override
# them): connections open at once, seconds a connection may idle between requests (uvicorn's
# keep-alive timeout, which applies with CLIENT_BOUNDS off too), bytes of a request target and
# of one header field, header fields a request; and what gunicorn has no setting for: seconds a
# connection has to bring a whole request head, seconds a request has to bring its whole body
# once its head is in, and connections one client address (an IPv6 /64) may hold at once, a
# tenth of the worker's by default.
worker_connections = bounded_int("WEB_MAX_CONNECTIONS", 1000, 1, 1_000_000)
keepalive = bounded_int("WEB_KEEPALIVE_S", 5, 1, 3600, " seconds")
limit_request_line = bounded_int("WEB_MAX_REQUEST_LINE", 65_536, 256, 1_048_576, " bytes")
limit_request_field_size = bounded_int("WEB_MAX_HEADER_BYTES", 8190, 256, 1_048_576, " bytes")
limit_request_fields = bounded_int("WEB_MAX_HEADERS", 100, 10, 32_768)
HEADER_TIMEOUT_S = bounded("WEB_HEADER_TIMEOUT_S", 10.0, 0.5, 300, " seconds")
BODY_TIMEOUT_S = bounded("WEB_BODY_TIMEOUT_S", 30.0, 0.5, 600, " seconds")
# Seconds a client has to take an answer's bytes the kernel could not take at once (nginx
# `send_timeout`): past them the connection is dropped and what was kept for it freed.
SEND_TIMEOUT_S = bounded("WEB_SEND_TIMEOUT_S", 30.0, 0.5, 600, " seconds")
# A client's share is at most the worker's connections.
MAX_CONNECTIONS_PER_CLIENT = bounded_int(
    "WEB_MAX_CONNECTIONS_PER_CLIENT", max(1, worker_connections // 10), 1, worker_connections
)

# No control socket (gunicornc): gunicorn makes one path per user for every master
# (~/.gunicorn/gunicorn.ctl), so the last gateway started took it, and a command meant for one
# gateway reached another. The master answers signals as before (HUP, TTIN, TTOU, TERM).
control_socket_disable = True

# With LOG_FORMAT=json, gunicorn's and uvicorn's lines are JSON objects too (the gateway's own
# follow gateway/settings.py LOGGING).
if log_format(env.str("LOG_FORMAT", default="text")) == "json":
    logconfig_dict = gunicorn_logging()


# gunicorn's line as the role starts (gunicorn/arbiter.py), its arguments the listeners and pid.
LISTENING = "Listening at: %s (%s)"


class WebLogger(Logger):
    """gunicorn's logger, but for the address its "Listening at" line names: the addresses the
    workers bind (`--bind`), where gunicorn, whose master holds no socket with `--reuse-port`,
    would name none (tests/gateway/test_connections.py reads the line the web role writes)."""

    def info(self, msg: str, *args: Any, **kwargs: Any) -> None:
        if msg == LISTENING and args and not args[0]:
            bound = ",".join(
                address if address.startswith("unix:") else f"http://{address}"
                for address in self.cfg.bind
            )
            args = (bound, *args[1:])
        super().info(msg, *args, **kwargs)


logger_class = WebLogger


def address_in_use(host: str, port: int) -> OSError | None:
    """Why `host:port` cannot be listened on by a server of its own, or None. Only binds a
    socket, without SO_REUSEPORT, which Linux refuses while another socket listens there."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # connections in TIME_WAIT
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc
    return None


def on_starting(server: Any) -> None:
    for address in server.cfg.address:
        if not isinstance(address, tuple) or not address[1]:
            continue  # a Unix socket, or a port the system picks
        host, port = address[0], address[1]
        if (error := address_in_use(host, port)) is not None:
            raise SystemExit(
                f"Cannot serve on {host}:{port}: {error.strerror}. Another server (perhaps "
                "another `make run`) listens there: stop it, or set PORT to another port."
            )
    if (metrics_dir := metrics_files.directory()) is not None:
        metrics_files.export(metrics_dir)
        metrics_files.forget_dead(metrics_dir)


def child_exit(server: Any, worker: Any) -> None:
    metrics_files.process_ended(worker.pid)


def post_fork(server: Any, worker: Any) -> None:
    if server.cfg.reuse_port:
        worker.sockets = [_not_listening(listener) for listener in worker.sockets]


def _not_listening(listener: Any) -> Any:
    """A socket in the SO_REUSEPORT group of `listener`'s address that does not listen yet, in
    place of `listener` (closed): the kernel gives connections only to listening sockets."""
    if listener.family not in (socket.AF_INET, socket.AF_INET6):
        return listener  # a Unix socket: shared by the workers, never a group
    fresh = socket.socket(listener.family, socket.SOCK_STREAM)
    fresh.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    fresh.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    fresh.bind(listener.getsockname())
    fresh.setblocking(False)
    listener.close()
    return fresh
