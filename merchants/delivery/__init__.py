"""Intent.Surge delivery: publish an event, fan it out to the merchants it fits, attempt,
retry, give up.

Every event, delivery and attempt is a row. Publishing writes the event (its exact body, once)
in the intent's own transaction and, after commit, sends one task that fans it out: one delivery
per merchant the intent fits, each sent as a task that only names it (kernel/dispatch.py). A
worker claims a due delivery with a conditional UPDATE that leases it, so a task that arrives
twice sends once. Retries are scheduled in the database (`next_attempt_at`) and sent by the
sweeper, which also fans out events whose task was lost and takes back deliveries whose lease
lapsed because their worker died mid-attempt (kernel/scheduling.py): a lost broker message or
a killed worker delays a delivery, never loses it. The merchant may see an
event twice (at-least-once), always under the same `webhook-id`.

No merchant can hold up another's deliveries (DESIGN.md section 7): a merchant has at most
WEBHOOK_MERCHANT_IN_FLIGHT deliveries under way (the next ones wait a moment); a merchant whose
last attempt or probe got no answer in time is `slow`, and its deliveries go to the slow lane,
a queue with its own workers, until it answers again; probes have their own queue too.

A merchant reads its own deliveries through the API and may retry a failed one
(self_service.py)."""

from merchants.delivery.attempts import (
    DELIVERING,
    GONE,
    MAX_ATTEMPTS,
    MAX_BODY_BYTES,
    REQUEUE_AFTER,
    REQUEUE_IDLE_AFTER,
    RETRY_SCHEDULE,
    WORKER_STOPPED,
    after_failure,
    attempt_time_limits,
    claim_lease,
    delivery_attempt,
)
from merchants.delivery.events import (
    FAN_OUT,
    FAN_OUT_GRACE,
    PROTOCOL_VERSION,
    SURGE,
    event_body,
    event_fan_out,
    surge_announce,
    surge_body,
    surge_event,
    surge_publish,
)
from merchants.delivery.lanes import (
    DELIVER,
    FAST_LANE,
    IN_FLIGHT_PAUSE,
    SLOW_LANE,
    STUCK_AFTER,
    deliveries_enqueue,
    merchant_answered,
    slow_merchants,
)
from merchants.delivery.self_service import (
    MOST_ATTEMPTS,
    DeliveriesPage,
    merchant_deliveries,
    merchant_delivery_retry,
)
from merchants.delivery.sweeper import (
    SWEEP_BATCH,
    deliveries_prune,
    deliveries_retry,
    deliveries_sweep,
)
from merchants.subscriptions import fits, subscribed_to

__all__ = [
    "DELIVER",
    "DELIVERING",
    "FAN_OUT",
    "FAN_OUT_GRACE",
    "FAST_LANE",
    "GONE",
    "IN_FLIGHT_PAUSE",
    "MAX_ATTEMPTS",
    "MAX_BODY_BYTES",
    "MOST_ATTEMPTS",
    "PROTOCOL_VERSION",
    "REQUEUE_AFTER",
    "REQUEUE_IDLE_AFTER",
    "RETRY_SCHEDULE",
    "SLOW_LANE",
    "STUCK_AFTER",
    "SURGE",
    "SWEEP_BATCH",
    "WORKER_STOPPED",
    "DeliveriesPage",
    "after_failure",
    "attempt_time_limits",
    "claim_lease",
    "deliveries_enqueue",
    "deliveries_prune",
    "deliveries_retry",
    "deliveries_sweep",
    "delivery_attempt",
    "event_body",
    "event_fan_out",
    "fits",
    "merchant_answered",
    "merchant_deliveries",
    "merchant_delivery_retry",
    "slow_merchants",
    "subscribed_to",
    "surge_announce",
    "surge_body",
    "surge_event",
    "surge_publish",
]
