"""The clock's minute, which the bounds per destination count by (merchants/delivery/hosts.py):
a test that spends a bound must spend it within one minute, or the next minute's count lets
through what this one's would have refused."""

import time

# Seconds of a minute a test of a bound needs at most; fewer left, it waits for the next one.
MARGIN_S = 10


def a_whole_minute_ahead() -> None:
    """Return at once when MARGIN_S seconds or more of this minute remain, else at the start
    of the next minute."""
    left = 60 - time.time() % 60
    if left < MARGIN_S:
        time.sleep(left + 0.05)
