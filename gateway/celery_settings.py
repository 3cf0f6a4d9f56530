"""Where the gateway's Celery tasks go and when beat sends them (gateway/settings.py)."""

from typing import Any

# Merchant-facing work has queues and workers of its own, away from the gateway's own tasks: the
# fast lane, the slow lane (deliveries to merchants that stopped answering in time, sent there by
# merchants.delivery.deliveries_enqueue), and probes with endpoint verifications.
TASK_ROUTES = {
    "merchants.tasks.fan_out": {"queue": "webhooks"},
    "merchants.tasks.deliver": {"queue": "webhooks"},
    "merchants.tasks.probe": {"queue": "probes"},
    "merchants.tasks.verify_endpoint": {"queue": "probes"},
}

HOURLY = 3600.0


def beat_schedule(*, sweep_s: float, probe_s: float, intent_sweep_s: float) -> dict[str, Any]:
    """Beat's periodic tasks, at the intervals the settings give."""

    def every(seconds: float, task: str) -> dict[str, Any]:
        return {"task": task, "schedule": seconds}

    return {
        "sweep-deliveries": every(sweep_s, "merchants.tasks.sweep_deliveries"),
        "sweep-verifications": every(sweep_s, "merchants.tasks.sweep_verifications"),
        "probe-merchants": every(probe_s, "merchants.tasks.probe_merchants"),
        "prune-merchant-records": every(HOURLY, "merchants.tasks.prune_records"),
        "prune-recommend-records": every(HOURLY, "reporting.tasks.prune_records"),
        "resolve-intents": every(intent_sweep_s, "matching.tasks.resolve_pending_intents"),
    }
