"""The admin's pages of the kernel's tables: the Idempotency-Keys the API keeps, read-only
(kernel/idempotency.py)."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from kernel.admin_display import ReadOnlyAdmin, keep_out_of_reach
from kernel.models import IdempotencyKey

# An idempotency key's hashes, and its answer (encrypted: it may show a secret once).
keep_out_of_reach(("key_hash", "request_hash", "stored_answer"))


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(ReadOnlyAdmin):
    """POSTs sent with an Idempotency-Key (kernel/idempotency.py): which request, by what kind of
    caller, how it was answered, until when its retries are answered again. Never the key, the
    caller nor the answer."""

    list_display = ("method", "path", "caller", "status_code", "created_at", "expires_at")
    list_filter = ("caller", "method", "status_code")
    search_fields = ("path",)
    date_hierarchy = "created_at"
    fields = (
        "method",
        "path",
        "caller",
        "status_code",
        "run",
        "locked_until",
        "created_at",
        "expires_at",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[IdempotencyKey]:
        return super().get_queryset(request).defer("stored_answer")  # never even decrypted
