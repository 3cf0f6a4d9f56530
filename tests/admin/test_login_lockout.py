"""The staff login is bounded (django-axes): after ADMIN_LOGIN_FAILURE_LIMIT wrong passwords for
one user name from one address, that pair is locked out, the right password included; another
address, or the same address once the cool-off has passed, logs in."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt, AccessLog
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(
        "ops", password=PASSWORD, is_staff=True, is_superuser=True
    )


def login(client: Client, password: str):
    return client.post("/admin/login/?next=/admin/", {"username": "ops", "password": password})


def test_wrong_passwords_lock_the_name_out_from_that_address(staff, settings):
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(attacker, "guess").status_code == 200  # the form again, with its error
    assert login(attacker, "guess").status_code == 429  # the last one allowed locks it

    locked = login(attacker, PASSWORD)

    assert locked.status_code == 429
    assert "_auth_user_id" not in attacker.session
    assert AccessAttempt.objects.get(username="ops").failures_since_start > (
        settings.AXES_FAILURE_LIMIT  # the right password while locked out counts as a failure
    )
    # The colleague at another address is not locked out by the attacker.
    colleague = Client(REMOTE_ADDR="198.51.100.7")
    assert login(colleague, PASSWORD).status_code == 302


def test_the_lockout_ends_after_the_cool_off(staff, settings):
    client = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(client, "guess")
    assert login(client, PASSWORD).status_code == 429

    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time
        - (settings.AXES_COOLOFF_TIME + timedelta(seconds=1))
    )

    assert login(client, PASSWORD).status_code == 302


def test_a_success_before_the_limit_forgets_the_failures(staff, settings):
    client = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "guess")

    assert login(client, PASSWORD).status_code == 302
    assert not AccessAttempt.objects.exists()


def test_behind_a_proxy_the_lockout_is_of_the_forwarded_address(staff, settings):
    """Behind nginx (TRUSTED_PROXY_COUNT=1) every login comes from the proxy's address: the
    lockout reads the client's from X-Forwarded-For, as the throttles do, so an attacker locks
    out only itself, never a colleague behind the same proxy."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    proxy = "10.0.0.2"
    attacker = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="203.0.113.9")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        login(attacker, "guess")
    assert login(attacker, PASSWORD).status_code == 429

    colleague = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="198.51.100.7")

    assert login(colleague, PASSWORD).status_code == 302
    assert AccessAttempt.objects.get().ip_address == "203.0.113.9"


def test_a_login_made_in_process_names_no_address(staff):
    """Django's force_login sends no request from anywhere: axes records no address for it,
    never the text "None" (which PostgreSQL's inet column refuses)."""
    Client().force_login(staff)

    assert list(AccessLog.objects.values_list("ip_address", flat=True)) == [None]
