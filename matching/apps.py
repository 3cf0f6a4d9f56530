from django.apps import AppConfig


class MatchingConfig(AppConfig):
    name = "matching"
    verbose_name = "Intent matching"
