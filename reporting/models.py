"""Attribution facts recorded here: clicks on cards' buy links and merchants' conversions.

The other facts the report reads live where they happen: issued cards (catalog.Recommendation),
match sessions and accepted match tokens (matching).
"""

from datetime import timedelta

from django.core.validators import MinLengthValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from catalog.models import Product, Recommendation
from kernel.fields import JSONField
from matching.models import MatchToken
from merchants.models import MerchantAgent

# Clocks of merchants' systems drift: an order may be stamped this far off the gateway's clock.
CLOCK_SKEW = timedelta(minutes=5)


class Click(models.Model):
    """One follow of a card's buy link (`/r/{rec_id}`)."""

    recommendation = models.ForeignKey(
        Recommendation, on_delete=models.PROTECT, related_name="clicks", db_index=False
    )  # indexed by click_client, which it leads
    clicked_at = models.DateTimeField(auto_now_add=True, db_index=True)
    user_agent = models.CharField(max_length=300, blank=True, default="")
    referrer = models.CharField(max_length=500, blank=True, default="")
    # Who clicked, as a keyed hash of the address (an IPv6 address's /64), never the address
    # itself: enough to count a client once per card (reporting/services/clicks.py).
    client_key = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        ordering = ["-clicked_at"]
        indexes = [
            models.Index(fields=["recommendation", "client_key", "clicked_at"], name="click_client")
        ]

    def __str__(self) -> str:
        return f"{self.recommendation_id} at {self.clicked_at:%Y-%m-%d %H:%M:%S}"


class Conversion(models.Model):
    """An order a merchant reports as the outcome of a card (rec_id) or a match token.

    Idempotent on the merchant's own order id: one row per (merchant, order_id).
    """

    conversion_id = models.CharField(verbose_name="conversion ID", max_length=40, primary_key=True)
    merchant = models.ForeignKey(
        MerchantAgent, on_delete=models.PROTECT, related_name="conversions", db_index=False
    )  # indexed by conversion_order_unique, which it leads
    order_id = models.CharField(
        verbose_name="order ID",
        max_length=128,
        validators=[MinLengthValidator(1)],
        help_text="The merchant's order id.",
    )
    recommendation = models.ForeignKey(
        Recommendation,
        on_delete=models.PROTECT,
        related_name="conversions",
        null=True,
        blank=True,
    )
    match_token = models.ForeignKey(
        MatchToken, on_delete=models.PROTECT, related_name="conversions", null=True, blank=True
    )
    # Derived from the reference when recorded, so the report groups without joins.
    product = models.ForeignKey(
        Product, on_delete=models.PROTECT, related_name="conversions", db_index=False
    )  # indexed by conversion_product, which it leads
    channel = models.CharField(max_length=64, null=True, blank=True)
    amount = models.DecimalField(max_digits=12, decimal_places=2, validators=[MinValueValidator(0)])
    currency = models.CharField(max_length=3, help_text="ISO 4217 code, upper case.")
    occurred_at = models.DateTimeField(help_text="When the order was placed.")
    quantity = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    # The conversions policy (SECURITY.md): why this sale is not counted as earned. Flagged
    # conversions are kept, listed apart, and left out of conversions and GMV.
    flags = JSONField(default=list, blank=True)
    flagged = models.BooleanField(default=False, db_index=True)

    class Meta:
        ordering = ["-occurred_at", "conversion_id"]
        indexes = [
            models.Index(fields=["occurred_at"], name="conversion_occurred_at"),
            models.Index(fields=["product", "occurred_at"], name="conversion_product"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "order_id"], name="conversion_order_unique"
            ),
            models.CheckConstraint(
                condition=Q(recommendation__isnull=False) | Q(match_token__isnull=False),
                name="conversion_has_reference",
            ),
            models.CheckConstraint(condition=Q(amount__gte=0), name="conversion_amount_gte_0"),
            models.CheckConstraint(condition=~Q(order_id=""), name="conversion_order_id_not_empty"),
        ]
        permissions = [("view_attribution_report", "Can view the attribution report pages")]

    def __str__(self) -> str:
        return f"{self.conversion_id} (order {self.order_id})"
