"""Merchant agents: who they are, where their webhooks go, and their secret credentials."""

import re

from django.db import models
from django.db.models import Q

MERCHANT_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
# Ids a merchant may not take: route names under /v1/merchant/, and the label ranked items give
# the gateway's own catalog proposals.
RESERVED_MERCHANT_IDS = frozenset({"register", "heartbeat", "catalog"})
# What a merchant sets at registration and may change later with its token (PATCH).
MUTABLE_FIELDS = (
    "agent_endpoint",
    "subscription_tags",
    "capabilities",
    "regions",
    "category_tags",
    "inventory_scope",
    "protocol_version",
    "a2a_capabilities",
    "metadata",
)


class MerchantStatus(models.TextChoices):
    ACTIVE = "active"
    UNHEALTHY = "unhealthy"  # failing probes or deliveries
    DEACTIVATED = "deactivated"


class MerchantAgent(models.Model):
    """A merchant's agent: receives Intent.Surge webhooks and submits proposals."""

    merchant_id = models.CharField(max_length=64, unique=True)
    agent_endpoint = models.URLField(max_length=2000)
    subscription_tags = models.JSONField(default=list, blank=True)
    capabilities = models.JSONField(default=list, blank=True)
    regions = models.JSONField(default=list, blank=True)
    category_tags = models.JSONField(default=list, blank=True)
    inventory_scope = models.JSONField(default=list, blank=True)
    protocol_version = models.CharField(max_length=16, null=True, blank=True, default="0.2")
    a2a_capabilities = models.JSONField(default=dict, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=MerchantStatus.choices, default=MerchantStatus.ACTIVE
    )
    # SHA-256 of the registration token; the token itself is shown once and never stored.
    token_hash = models.CharField(max_length=64, unique=True)
    # The Standard Webhooks signing secret: kept, because every delivery is signed with it.
    webhook_secret = models.CharField(max_length=100)
    registered_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    deactivated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["merchant_id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=MerchantStatus.values), name="merchant_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(status=MerchantStatus.DEACTIVATED) | Q(deactivated_at__isnull=True),
                name="merchant_deactivated_at_only_when_deactivated",
            ),
        ]

    # A merchant authenticated by its token is the request's principal (request.user); DRF's
    # throttles and permissions ask this of it, as they would of a Django user.
    is_authenticated = True

    def __str__(self) -> str:
        return self.merchant_id

    @property
    def is_deactivated(self) -> bool:
        return self.status == MerchantStatus.DEACTIVATED
