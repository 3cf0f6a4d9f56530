"""`manage.py reencrypt_secrets`: every secret at rest encrypted again under the first key of
SECRETS_ENCRYPTION_KEYS, the step of a key rotation between adding a key and dropping the old
one (docs/data.md#secrets-at-rest)."""

from typing import Any

from django.core.management.base import BaseCommand
from django.db import connection, transaction

from kernel.secrets import reencrypt

# (table, primary key, column) of every secret at rest: merchants' webhook secrets, and the
# answers kept for Idempotency-Key retries (NULL while their request runs).
COLUMNS = [
    ("merchants_merchantagent", "id", "webhook_secret"),
    ("kernel_idempotencykey", "id", "stored_answer"),
]


class Command(BaseCommand):
    help = "Encrypt every secret at rest again under the first key of SECRETS_ENCRYPTION_KEYS."

    def handle(self, *args: Any, **options: Any) -> None:
        done = 0
        with transaction.atomic(), connection.cursor() as cursor:
            for table, key, column in COLUMNS:
                # Constant names of our own tables; the values are bound parameters.
                stored = f"SELECT {key}, {column} FROM {table} WHERE {column} IS NOT NULL"  # noqa: S608
                cursor.execute(stored)
                for pk, value in cursor.fetchall():
                    cursor.execute(
                        f"UPDATE {table} SET {column} = %s WHERE {key} = %s",  # noqa: S608
                        [reencrypt(value), pk],
                    )
                    done += 1
        noun = "secret" if done == 1 else "secrets"
        self.stdout.write(f"{done} {noun} encrypted again under the first key.")
