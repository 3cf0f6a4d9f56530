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


def broker_transport_options(broker_url: str) -> dict[str, Any]:
    """kombu's options for the broker's transport (the filesystem broker adds its folders)."""
    options: dict[str, Any] = {
        # A request that sends a task after commit must not wait for a broker that is down: one
        # quick retry, then the task is left to the sweeper (its row is already committed).
        "max_retries": 1,
        "interval_start": 0,
        "interval_step": 0.2,
        "interval_max": 0.2,
    }
    if broker_url.startswith(("redis://", "rediss://")):
        # No acknowledgement emulation on Redis: a worker takes a message off its queue as it
        # receives it. The emulation kept each message taken in an `unacked` hash and, as a
        # worker closed its connection to a Redis that had gone away, put them back: that failed
        # and ended the worker ("Unrecoverable error" in kombu's restore_unacked), about one
        # restart in six. It bought nothing: a message kept there came back only after an hour
        # (the visibility timeout), while every task names a row the sweeps send again within a
        # minute (kernel/dispatch.py, docs/failures.md "Losing Redis or the database").
        options["ack_emulation"] = False
    return options


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
