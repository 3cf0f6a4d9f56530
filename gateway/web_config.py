"""gunicorn's hooks for the web role (`gunicorn --config python:gateway.web_config`).

The role serves with `--reuse-port`: each worker listens on a socket of its own, all in one
SO_REUSEPORT group, and the kernel spreads connections over them (docs/operations.md). Such a
port never refuses another server of the same user: a second `make run`, or an old gateway left
running, would quietly take part of the connections of the first. So the web role refuses to
start while anything listens on its address.
"""

import socket
from typing import Any


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
