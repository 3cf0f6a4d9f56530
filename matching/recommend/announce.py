"""Announce: the intent's Intent.Surge, made before the rows are recorded (it is written with
them) and sent to the subscribed merchants once they are committed (merchants/delivery)."""

from matching.models import Intent
from matching.rendering import intent_body
from merchants.delivery import surge_announce, surge_event
from merchants.models import WebhookEvent


def surge_of(intent: Intent) -> WebhookEvent | None:
    """The intent's event, not yet written; None when no merchant subscribes to its tags."""
    return surge_event(intent=intent_body(intent))


def announce(event: WebhookEvent | None) -> None:
    """Fan the written event out after commit."""
    if event is not None:
        surge_announce(event)
