"""Staff's view of webhook deliveries, attempts and probes: read-only records, two actions."""

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils.html import escape

from merchants.delivery import delivery_attempt
from merchants.models import DeliveryStatus, HealthProbe, WebhookDelivery
from tests.protocol import create_intent, fan_out, register
from tests.support.forms import current_form_data
from tests.support.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, django_user_model):
    user = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw")
    client.force_login(user)
    return client


@pytest.fixture
def failed_delivery(staff, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_TIMEOUT_S = 1.0
    with Receiver() as merchant:
        merchant.script("410")
        register(staff, "shop-1", agent_endpoint=merchant.url, subscription_tags=["trail"])
        create_intent(staff, intent_tags=["trail"])
        fan_out()
        delivery = WebhookDelivery.objects.get()
        delivery_attempt(delivery_id=delivery.pk)
        yield delivery


def test_a_delivery_page_shows_its_body_and_every_attempt(staff, failed_delivery):
    url = reverse("admin:merchants_webhookdelivery_change", args=[failed_delivery.pk])

    page = staff.get(url).content.decode()

    assert "The endpoint answered 410." in page
    # The exact bytes signed and sent, escaped, not re-serialized.
    assert escape(failed_delivery.event.body) in page
    assert f"&quot;id&quot;:&quot;{failed_delivery.event_id}&quot;" in page
    assert ">410<" in page.replace(" ", "")
    # Labelled by the merchant's id and each attempt's own number, not by internal keys.
    assert f"<h2>{failed_delivery.event_id} to shop-1</h2>" in page
    assert "attempt 1" in page
    assert f"attempt 1 of {failed_delivery.pk}" not in page
    assert f"{len(failed_delivery.event.body.encode())} bytes, UTF-8" in page


def test_deliveries_are_read_only(staff, failed_delivery):
    change = reverse("admin:merchants_webhookdelivery_change", args=[failed_delivery.pk])

    assert staff.get(reverse("admin:merchants_webhookdelivery_add")).status_code == 403
    assert staff.post(change, {"status": "succeeded"}).status_code == 403
    failed_delivery.refresh_from_db()
    assert failed_delivery.status == DeliveryStatus.FAILED


def test_the_changelist_filters_failed_deliveries(staff, failed_delivery):
    page = staff.get(reverse("admin:merchants_webhookdelivery_changelist"), {"status": "failed"})

    assert page.status_code == 200
    assert list(page.context["cl"].result_list) == [failed_delivery]


def test_retry_now_makes_a_failed_delivery_due(
    staff, failed_delivery, django_capture_on_commit_callbacks
):
    changelist = reverse("admin:merchants_webhookdelivery_changelist")

    with django_capture_on_commit_callbacks() as callbacks:
        response = staff.post(
            changelist, {"action": "retry_now", "_selected_action": [failed_delivery.pk]}
        )

    assert response.status_code == 302
    failed_delivery.refresh_from_db()
    assert failed_delivery.status == DeliveryStatus.PENDING
    assert failed_delivery.completed_at is None
    assert len(callbacks) == 1  # the task goes out after commit


def test_the_merchant_page_shows_delivery_health_and_probes(staff, failed_delivery):
    merchant = failed_delivery.merchant
    HealthProbe.objects.create(
        merchant=merchant,
        checked_at=failed_delivery.created_at,
        healthy=False,
        error="Could not connect to the endpoint.",
        trigger="schedule",
    )

    page = staff.get(reverse("admin:merchants_merchantagent_change", args=[merchant.pk]))

    text = page.content.decode()
    assert "0 pending, 0 sending, 0 succeeded, 1 failed" in text
    assert "Latest error: The endpoint answered 410." in text
    assert "schedule: unhealthy Could not connect to the endpoint." in text


def test_probe_now_queues_a_probe_per_merchant(staff, failed_delivery, monkeypatch):
    queued = []
    monkeypatch.setattr("merchants.tasks.probe.delay", lambda *args: queued.append(args))
    changelist = reverse("admin:merchants_merchantagent_changelist")

    response = staff.post(
        changelist, {"action": "probe_now", "_selected_action": [failed_delivery.merchant_id]}
    )

    assert response.status_code == 302
    assert queued == [(failed_delivery.merchant_id, "staff")]


def test_staff_who_may_only_look_cannot_retry(failed_delivery, client, django_user_model):
    viewer = django_user_model.objects.create_user("viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_webhookdelivery"))
    client.force_login(viewer)
    changelist = reverse("admin:merchants_webhookdelivery_changelist")

    page = client.get(changelist)
    client.post(changelist, {"action": "retry_now", "_selected_action": [failed_delivery.pk]})

    assert page.status_code == 200
    assert b"retry_now" not in page.content
    failed_delivery.refresh_from_db()
    assert failed_delivery.status == DeliveryStatus.FAILED


def test_a_new_endpoint_set_in_the_admin_re_enables_deliveries(staff, failed_delivery):
    merchant = failed_delivery.merchant
    merchant.refresh_from_db()
    assert merchant.deliveries_disabled_at is not None
    change = reverse("admin:merchants_merchantagent_change", args=[merchant.pk])
    data = current_form_data(staff.get(change).content.decode())

    response = staff.post(change, {**data, "agent_endpoint": "http://127.0.0.1:9/new-hook"})

    assert response.status_code == 302, response.content
    merchant.refresh_from_db()
    assert merchant.agent_endpoint == "http://127.0.0.1:9/new-hook"
    assert merchant.deliveries_disabled_at is None
