"""Webhook secrets encrypted at rest (kernel/secrets.py): the column becomes text, and every
secret stored in the clear is encrypted in place."""

from typing import Any

from django.db import migrations

import kernel.fields
from kernel.secrets import decrypt, encrypt


def _rewrite(apps: Any, schema_editor: Any, change: Any) -> None:
    # Raw rows: the historical model's field would try to open what is still in the clear.
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, webhook_secret FROM merchants_merchantagent")
        rows = cursor.fetchall()
        for pk, value in rows:
            cursor.execute(
                "UPDATE merchants_merchantagent SET webhook_secret = %s WHERE id = %s",
                [change(value), pk],
            )


def encrypt_secrets(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, schema_editor, encrypt)


def decrypt_secrets(apps: Any, schema_editor: Any) -> None:
    _rewrite(apps, schema_editor, decrypt)


class Migration(migrations.Migration):
    dependencies = [
        ("merchants", "0003_webhook_events"),
    ]

    operations = [
        migrations.AlterField(
            model_name="merchantagent",
            name="webhook_secret",
            field=kernel.fields.EncryptedTextField(),
        ),
        migrations.RunPython(encrypt_secrets, decrypt_secrets),
    ]
