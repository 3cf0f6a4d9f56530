"""The broker of the embedded default: kombu's filesystem transport (a folder under var/), with
two fixes for processes that share it under `make run`.

- **A message appears whole.** kombu creates a message's file, then writes into it; a worker
  polling the folder (ten times a second) could take the file while still empty, and stop with
  "Unrecoverable error: JSONDecodeError". Here a message is written under a name no worker takes,
  then renamed into place, which is atomic.
- **A worker asked to stop, stops.** On a transport without events Celery's loop waits for
  messages 2 s at a time and looks for a shutdown between waits, and waits once more after it
  sees one: a worker took 4 to 6 s to stop, and honcho kills whatever still runs 5 s after the
  first process stopped. Here a wait lasts at most WAIT_S, so a worker stops within a second.

gateway/settings.py names this transport (CELERY_BROKER_TRANSPORT) when the broker URL is
`filesystem://`; Redis, when configured, needs neither fix.
"""

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

WAIT_S = 0.25


# The signatures of the methods below are kombu's filesystem transport's, as kombu calls them;
# its type stubs give them different ones at each level of the hierarchy (hence the ignores).
class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:  # type: ignore[override]
        """Put a message on `queue`: written aside, then renamed to the name workers look for
        (kombu's own: the time first, so that they take messages in order)."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        # No worker takes it: kombu takes a file whose name after the first dot is "<queue>.msg".
        aside = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(aside, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(aside, os.path.join(self.data_folder_out, name))
        except OSError as exc:
            raise ChannelError(f"Cannot add file {name!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection: Any, timeout: float | None = None) -> None:  # type: ignore[override]
        """Wait for a message at most WAIT_S at a time: Celery looks for a shutdown in between."""
        super().drain_events(connection, None if timeout is None else min(timeout, WAIT_S))
