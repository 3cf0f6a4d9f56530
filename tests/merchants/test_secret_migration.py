"""Secrets stored in the clear before webhook secrets were encrypted are encrypted by the
migration, and read back as they were."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from merchants.models import MerchantAgent

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("merchants", "0003_webhook_events")]


def migrate(targets=None):
    """The database migrated to `targets`, or to the latest migrations; their models."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    targets = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


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
