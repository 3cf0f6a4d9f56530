"""The delivery sweeper runs every few seconds: it logs one line when it did something and
nothing when it found nothing to do, and Celery's own lines for its runs (beat sending it, the
worker receiving it, its success) are left out (gateway/logging_settings.py)."""

import logging
import re
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from gateway.celery import app
from merchants.delivery import FAN_OUT_GRACE
from merchants.models import DeliveryStatus, WebhookDelivery, WebhookEvent
from merchants.tasks import sweep_deliveries
from tests.merchants.delivery_calls import surge_delivery
from tests.protocol import create_intent, register
from tests.support.worker import Worker, purge, wait_until

SWEEP_LINE = re.compile(
    r"delivery sweep: (\d+) deliveries sent, (\d+) taken back from a stopped worker, "
    r"(\d+) events fanned out$"
)


@pytest.mark.django_db
def test_a_sweep_with_nothing_to_do_logs_nothing(client, shop, caplog):
    create_intent(client, intent_tags=["kitchen"])  # no merchant subscribes: nothing to send
    caplog.clear()

    sweep_deliveries()

    assert caplog.records == []


@pytest.mark.django_db
def test_a_sweep_that_sent_a_delivery_logs_one_line(client, shop, caplog):
    surge_delivery(
        client
    )  # a due delivery whose after-commit send never ran (the test's transaction)
    caplog.clear()

    sweep_deliveries()
    sweep_deliveries()  # just sent: nothing to do the second time

    (record,) = caplog.records
    assert record.levelname == "INFO"
    assert record.getMessage() == (
        "delivery sweep: 1 deliveries sent, 0 taken back from a stopped worker, 0 events fanned out"
    )


@pytest.mark.django_db(transaction=True)
def test_a_worker_logs_the_sweep_that_did_something_and_no_line_of_celery_for_any_sweep(
    client, receiver, tmp_path
):
    register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    create_intent(client, intent_tags=["trail"])
    # The fan-out's task is lost and the event is past its grace: only the sweeper sends it.
    purge(app.conf.broker_url)
    WebhookEvent.objects.update(created_at=timezone.now() - FAN_OUT_GRACE - timedelta(seconds=1))
    worker = Worker(tmp_path, app.conf.broker_url).start()  # beat sweeps every second
    try:
        receiver.wait_for(1)
        wait_until(
            lambda: WebhookDelivery.objects.filter(status=DeliveryStatus.SUCCEEDED).exists(),
            what="the delivery to succeed",
        )
        wait_until(
            lambda: "merchants.tasks.deliver[" in worker.log(), what="the delivery's log lines"
        )
    finally:
        worker.stop()
    log = worker.log()
    print(log)  # shown when the test failed

    (line,) = [line for line in log.splitlines() if "delivery sweep:" in line]
    match = SWEEP_LINE.search(line)
    assert match is not None
    assert match.group(3) == "1"  # the lost event, fanned out by the sweep
    assert "Sending due task" not in log
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert f"{entry['task']}[" not in log  # neither received nor succeeded
    assert "merchants.tasks.deliver[" in log  # the lines of other tasks are kept
    assert "ERROR" not in log


def test_celery_lines_of_a_failing_periodic_task_are_kept():
    """A failure is logged by Celery at ERROR, whatever the task."""
    from celery.app.trace import LOG_FAILURE, LOG_SUCCESS

    from gateway.logging_settings import QuietPeriodicRuns

    quiet = QuietPeriodicRuns(["merchants.tasks.sweep_deliveries"])
    context: dict[str, Any] = {"id": "1", "name": "merchants.tasks.sweep_deliveries"}
    context.update(exc="boom", runtime=0.01, return_value=None, description="raised unexpected")

    def record(level: int, message: str) -> logging.LogRecord:
        return logging.LogRecord("celery.app.trace", level, __file__, 1, message, (context,), None)

    assert quiet.filter(record(logging.ERROR, LOG_FAILURE)) is True
    assert quiet.filter(record(logging.INFO, LOG_SUCCESS)) is False
