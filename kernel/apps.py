from django.apps import AppConfig


class KernelConfig(AppConfig):
    """What every app builds on, made an app for the tables all of them share (kernel/models.py:
    the Idempotency-Keys of every app's POSTs)."""

    name = "kernel"
    verbose_name = "API requests"
