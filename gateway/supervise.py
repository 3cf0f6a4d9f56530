"""Run one role's command and start it again whenever it ends by itself.

    python -m gateway.supervise celery -A gateway worker ...

`make run` starts the Procfile's roles under honcho, which stops every role as soon as one
ends: a Celery role that exited (a crash, a broker lost for longer than it retries) would take
the web role down with it. Each Celery role runs under this wrapper instead, so it comes back
after a pause (1 s, doubled while it keeps ending within a minute, at most 30 s). A SIGTERM,
SIGINT or SIGHUP to the wrapper is passed on to the command, and the wrapper ends with it: that
is how honcho stops the roles at Ctrl-C.
"""

import signal
import subprocess
import sys
import time
from types import FrameType

FIRST_PAUSE_S = 1.0
LAST_PAUSE_S = 30.0
STEADY_S = 60.0  # a run this long resets the pause to the first one
STOPPING = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Supervisor:
    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.child: subprocess.Popen[bytes] | None = None
        self.stopping = False

    def stop(self, signum: int, _frame: FrameType | None) -> None:
        """Pass the signal on to the command, and start it no more."""
        self.stopping = True
        if self.child is not None and self.child.poll() is None:
            self.child.send_signal(signum)

    def run(self) -> int:
        """Run the command until a signal stops it; its exit status then."""
        pause = FIRST_PAUSE_S
        while True:
            started = time.monotonic()
            self.child = subprocess.Popen(self.command)  # noqa: S603 - the Procfile's command
            if self.stopping:  # the signal came as it started
                self.child.terminate()
            status = self.child.wait()
            if self.stopping:
                return status
            if time.monotonic() - started >= STEADY_S:
                pause = FIRST_PAUSE_S
            say(f"{self.command[0]} ended (status {status}); starting it again in {pause:.0f} s")
            resume = time.monotonic() + pause
            while not self.stopping and time.monotonic() < resume:
                time.sleep(0.1)
            if self.stopping:
                return status
            pause = min(pause * 2, LAST_PAUSE_S)


def say(line: str) -> None:
    print(f"supervise: {line}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> int:
    if not argv:
        say("usage: python -m gateway.supervise <command> [argument ...]")
        return 2
    supervisor = Supervisor(argv)
    for signum in STOPPING:
        signal.signal(signum, supervisor.stop)
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
