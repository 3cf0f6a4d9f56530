"""The Idempotency-Key table moved from the merchants app to the kernel's with its rows: a key
kept before the move is answered again after it, from the table under its new name."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.utils import timezone

from kernel.models import IdempotencyKey
from tests.support.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("merchants", "0012_idempotency_owner")]


def test_staff_who_could_see_the_keys_see_them_still():
    migrate(BEFORE)
    try:
        # What a database from before the move holds: merchants' model and its grant.
        old, _ = ContentType.objects.get_or_create(app_label="merchants", model="idempotencykey")
        viewing, _ = Permission.objects.get_or_create(
            content_type=old, codename="view_idempotencykey", name="Can view idempotency key"
        )
        Group.objects.create(name="support").permissions.add(viewing)
    finally:
        migrate()

    granted = Group.objects.get(name="support").permissions.filter(content_type__app_label="kernel")
    assert [permission.codename for permission in granted] == ["view_idempotencykey"]


def test_keys_kept_before_the_move_are_kept_after_it():
    now = timezone.now()
    old_apps = migrate(BEFORE)
    try:
        old_apps.get_model("merchants", "IdempotencyKey").objects.create(
            key_hash="a" * 64,
            request_hash="b" * 64,
            caller="client",
            owner="c" * 64,
            method="POST",
            path="/v1/intents",
            created_at=now,
            expires_at=now + timedelta(hours=24),
            locked_until=now + timedelta(seconds=30),
        )
    finally:
        migrate()

    kept = IdempotencyKey.objects.get(key_hash="a" * 64)
    assert (kept.path, kept.owner, kept.run) == ("/v1/intents", "c" * 64, 1)
    tables = connection.introspection.table_names()
    assert "kernel_idempotencykey" in tables
    assert "merchants_idempotencykey" not in tables
