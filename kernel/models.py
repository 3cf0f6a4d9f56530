"""The kernel's own tables: what every app's requests share, whichever app answers them."""

from django.db import models
from django.db.models import Q

from kernel.fields import EncryptedTextField


class IdempotencyKey(models.Model):
    """An Idempotency-Key of a POST of the API (kernel/idempotency.py): which request it was
    first sent with and, once that ran, its answer, kept for the key's retries until it expires
    (kernel/idempotency_keys.py)."""

    # SHA-256 of the caller and the key: neither the key nor who sent it is kept.
    key_hash = models.CharField(max_length=64, unique=True)
    # SHA-256 of the method, the path and the raw body of the request first sent with the key.
    request_hash = models.CharField(max_length=64)
    caller = models.CharField(max_length=64)  # its kind: a model's label, credential or client
    # SHA-256 of the client's address: its live keys are counted (IDEMPOTENCY_KEYS_PER_CLIENT).
    owner = models.CharField(max_length=64, default="")
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=300)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)
    # Which run of the request holds the key, until when: a retry takes over a run whose lock
    # lapsed (a worker killed mid-request). No lock once the answer is kept.
    run = models.PositiveIntegerField(default=1)
    locked_until = models.DateTimeField(null=True, blank=True)
    # The answer once the request ran: its status, and its headers and body deflated and
    # encrypted (answers show a registration_token or a demand_token once); past 6 KB only the
    # body's size and SHA-256 (kernel/idempotent_answers.py).
    status_code = models.PositiveSmallIntegerField(
        verbose_name="HTTP status", null=True, blank=True
    )
    stored_answer = EncryptedTextField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "expires_at"], name="idempotency_owner_live")]
        constraints = [
            models.CheckConstraint(
                condition=Q(status_code__isnull=True, stored_answer__isnull=True)
                | Q(status_code__isnull=False, stored_answer__isnull=False, locked_until=None),
                name="idempotency_answer_whole",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.path} at {self.created_at:%Y-%m-%d %H:%M:%S}"
