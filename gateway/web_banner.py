"""`make run`'s banner: where the gateway is, printed once its web role answers rather than as
the roles start (the web workers load and warm up before they listen, gateway/web_config.py:
seconds during which the links would lead nowhere).

    python gateway/web_banner.py --url http://127.0.0.1:8000 --base http://127.0.0.1:8000 &

`--url` is where the web role serves (its `/healthz` is asked), `--base` what the links say
(PUBLIC_BASE_URL). It runs beside honcho and ends with it: when the shell that started both
exits, so does the wait. Plain Python, no Django: it must not cost the start its own seconds.
"""

import argparse
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable


def answers(url: str, timeout: float = 1.0) -> bool:
    """Whether `url` answers 200 within `timeout` seconds."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - http(s) only
            return bool(response.status == 200)
    except (OSError, ValueError):  # refused, reset, timed out, an error status (HTTPError)
        return False


def wait_until_answering(
    url: str, *, deadline_s: float, still_wanted: Callable[[], bool] = lambda: True
) -> bool:
    """Ask `url` every 0.2 s until it answers 200 (True), the deadline passes or nobody waits for
    it any more (False)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end and still_wanted():
        if answers(url):
            return True
        time.sleep(0.2)
    return False


def banner(base: str) -> str:
    return "\n".join(
        [
            f"Gateway on {base}  (links it gives point there; set PUBLIC_BASE_URL to change them)",
            f"  admin {base}/admin/   contract {base}/openapi.json   docs {base}/docs/",
            f"  agent card {base}/.well-known/agent-card.json   A2A {base}/a2a/jsonrpc"
            f"   MCP {base}/mcp",
            f"  every entry point: curl {base}/",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Print the gateway's links once it answers.")
    parser.add_argument("--url", required=True, help="where the web role serves")
    parser.add_argument("--base", required=True, help="the gateway's public base URL")
    parser.add_argument("--deadline", type=float, default=300.0, help="seconds to wait at most")
    args = parser.parse_args(argv)
    parent = os.getppid()  # honcho's shell: once it exits, nobody is waiting for the banner
    health = f"{args.url.rstrip('/')}/healthz"
    if wait_until_answering(
        health, deadline_s=args.deadline, still_wanted=lambda: os.getppid() == parent
    ):
        print(banner(args.base.rstrip("/")), flush=True)
        return 0
    if os.getppid() == parent:
        print(f"The web role did not answer at {health} in {args.deadline:g} s.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
