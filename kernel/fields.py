"""Model fields the gateway's models share."""

from typing import Any

from django.db import models

from kernel.secrets import decrypt, encrypt


class JSONField(models.JSONField):
    """Django's JSONField, bound row by row in a PostgreSQL bulk insert.

    For a bulk insert of several rows Django 5.2 sends each column as one array through
    UNNEST, and psycopg then escapes every quote of every JSON document inside that text array:
    2 ms of Python for the three cards of a recommend, against 0.1 ms for the plain multi-row
    VALUES form that a field with its own placeholder keeps. The column, its migrations and
    everything else are Django's: the field deconstructs as models.JSONField.
    """

    def get_placeholder(self, value: Any, compiler: Any, connection: Any) -> str:
        return "%s"

    def deconstruct(self) -> Any:
        name, _, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs


class EncryptedTextField(models.TextField):
    """Text stored encrypted (Fernet: AES-128-CBC with HMAC-SHA256), read back in the clear.

    For secrets the gateway must use again, so cannot hash: a merchant's webhook signing secret.
    The keys are derived from SECRETS_ENCRYPTION_KEYS (kernel/secrets.py); a database dump, a
    backup or a staff lookup sees only ciphertext, which is different each time it is written,
    so no lookup on the column can find anything but by chance.
    """

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> str | None:
        return None if value is None else decrypt(value)

    def get_prep_value(self, value: Any) -> str | None:
        value = super().get_prep_value(value)
        return None if value is None else encrypt(value)
