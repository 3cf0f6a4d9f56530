"""What a web worker refuses, written to its log at most once a second (gateway/web_protocol.py).

A flood of connections makes a refusal per connection: a line each would write tens of thousands
of lines a minute (and cost the worker the CPU to write them). The first refusal after a quiet
second is written at once; those that follow within the second are counted, by reason, and
written as one line when the second is over:

    Refused or closed a connection: answered 429 (Too many connections from your address.)
    Refused or closed 4,211 more in the last second: 4,180 x answered 429 (...); 31 x ...

uvicorn's own line for a request it cannot parse is one of them (`UVICORN_REFUSAL`): the
worker answers it and counts it here, and the filter below keeps uvicorn's line out of the log,
with uvicorn's two lines for each request that asks for an upgrade to another protocol (the
gateway serves none, and answers it as plain HTTP).
"""

import asyncio
import logging
import time
from collections import Counter

logger = logging.getLogger("uvicorn.error")

UVICORN_REFUSAL = "Invalid HTTP request received."
UVICORN_UPGRADE = ("Unsupported upgrade request.", "No supported WebSocket library detected.")
INTERVAL_S = 1.0


class RefusalLog:
    """Refusals of one worker, by reason, written at most once an INTERVAL_S."""

    def __init__(self) -> None:
        self.counted: Counter[str] = Counter()  # refused since the last line, not yet written
        self.written_at = -INTERVAL_S
        self.flush: asyncio.TimerHandle | None = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the flush's

    def refused(self, reason: str) -> None:
        """Note one refusal: written now after a quiet interval, else counted for the line
        written when the interval is over."""
        now = time.monotonic()
        loop = asyncio.get_running_loop()
        if self.flush is not None and self.loop is not loop:  # a loop that ended (tests)
            self.flush = None
        if self.flush is None and now - self.written_at >= INTERVAL_S:
            self.written_at = now
            logger.warning("Refused or closed a connection: %s", reason)
            return
        self.counted[reason] += 1
        if self.flush is None:
            wait = max(self.written_at + INTERVAL_S - now, 0.0)
            self.flush, self.loop = loop.call_later(wait, self.write), loop

    def write(self) -> None:
        """Write what was counted since the last line, in one line."""
        self.flush = None
        if not self.counted:
            return
        self.written_at = time.monotonic()
        total = sum(self.counted.values())
        reasons = "; ".join(f"{count:,} x {reason}" for reason, count in self.counted.most_common())
        logger.warning("Refused or closed %s more in the last second: %s", f"{total:,}", reasons)
        self.counted.clear()


class WithoutUvicornsRefusal(logging.Filter):
    """On uvicorn's logger: leaves out its line for each request it cannot parse, which the
    worker answers and counts in its RefusalLog instead, and its lines for each request asking
    for an upgrade."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        return message != UVICORN_REFUSAL and not message.startswith(UVICORN_UPGRADE)
