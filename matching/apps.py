from django.apps import AppConfig


class MatchingConfig(AppConfig):
    name = "matching"
    verbose_name = "Intent matching"

    def ready(self) -> None:
        from matching import services
        from merchants.signals import merchant_deactivated

        merchant_deactivated.connect(services.proposals_withdraw, dispatch_uid="proposals_withdraw")

    def warm_up(self) -> None:
        """As a web worker starts: the intent engine's client (matching.engine.warm_up)."""
        from matching import engine

        engine.warm_up()
