"""Secrets stored in the clear before webhook secrets were encrypted are encrypted by the
migration, and read back as they were."""

import pytest
from django.db import connection

from merchants.models import MerchantAgent
from tests.support.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("merchants", "0003_webhook_events")]


def test_the_migration_encrypts_secrets_stored_in_the_clear():
    old_apps = migrate(BEFORE)
    try:
        old_apps.get_model("merchants", "MerchantAgent").objects.create(
            merchant_id="old-shop",
            agent_endpoint="https://93.184.216.34/agent",
            token_hash="0" * 64,
            webhook_secret="whsec_plain",
        )
    finally:
        migrate()  # 0004 encrypts

    with connection.cursor() as cursor:
        cursor.execute("SELECT webhook_secret FROM merchants_merchantagent")
        (stored,) = cursor.fetchone()
    assert "whsec_plain" not in stored
    assert MerchantAgent.objects.get(merchant_id="old-shop").webhook_secret == "whsec_plain"
