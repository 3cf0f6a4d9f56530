"""Merchant agents: who they are, where their webhooks go, their secret credentials, and the
record of every webhook delivery, delivery attempt and health probe made to them."""

import re

from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from kernel.fields import EncryptedTextField, JSONField

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


# The columns of an endpoint verification (merchants/verification.py): what a new verification
# sets, and what no admin lookup may touch (the pending challenge only the endpoint should echo,
# and the state around it).
VERIFICATION_FIELDS = (
    "endpoint_verified_at",
    "verification_event_id",
    "verification_challenge",
    "verification_attempts",
    "next_verification_at",
    "last_verification_error",
    "verification_parked_at",
)


class MerchantStatus(models.TextChoices):
    ACTIVE = "active"
    UNHEALTHY = "unhealthy"  # failing probes or deliveries
    DEACTIVATED = "deactivated"


class MerchantAgent(models.Model):
    """A merchant's agent: receives Intent.Surge webhooks and submits proposals."""

    merchant_id = models.CharField(verbose_name="merchant ID", max_length=64, unique=True)
    agent_endpoint = models.URLField(verbose_name="agent endpoint URL", max_length=2000)
    subscription_tags = JSONField(default=list, blank=True)
    capabilities = JSONField(default=list, blank=True)
    regions = JSONField(default=list, blank=True)
    category_tags = JSONField(default=list, blank=True)
    inventory_scope = JSONField(default=list, blank=True)
    protocol_version = models.CharField(max_length=16, null=True, blank=True, default="0.2")
    a2a_capabilities = JSONField(verbose_name="A2A capabilities", default=dict, blank=True)
    metadata = JSONField(default=dict, blank=True)
    status = models.CharField(
        max_length=16, choices=MerchantStatus.choices, default=MerchantStatus.ACTIVE
    )
    # SHA-256 of the registration token; the token itself is shown once and never stored.
    token_hash = models.CharField(max_length=64, unique=True)
    # The Standard Webhooks signing secret: kept, because every delivery is signed with it;
    # stored encrypted (kernel/secrets.py).
    webhook_secret = EncryptedTextField()
    registered_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    deactivated_at = models.DateTimeField(null=True, blank=True)
    # Set when the endpoint answered 410 Gone: no more webhooks until the merchant registers
    # again with its token or changes its endpoint.
    deliveries_disabled_at = models.DateTimeField(null=True, blank=True)
    # Set at the first of a run of attempts or probes that got no answer in time: its deliveries
    # go to the slow lane (merchants/delivery.py) until it answers again.
    slow_since = models.DateTimeField(null=True, blank=True)
    # Endpoint ownership (merchants/verification.py): set when the endpoint echoed the challenge
    # of an endpoint.verification event; until then no Intent.Surge goes to it. Every change of
    # the endpoint starts a new verification: a new event, challenge and schedule.
    endpoint_verified_at = models.DateTimeField(null=True, blank=True)
    verification_event_id = models.CharField(max_length=40, blank=True, default="")
    verification_challenge = models.CharField(max_length=64, blank=True, default="")
    verification_attempts = models.PositiveSmallIntegerField(default=0)
    next_verification_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_verification_error = models.CharField(max_length=300, blank=True, default="")
    # Set when the endpoint never echoed through the whole retry schedule: it is asked no more
    # until the merchant asks for a verification (POST /v1/merchant/{id}/verify) or changes it.
    verification_parked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["merchant_id"]
        constraints = [
            # Ids differing only in case name one merchant (lookups ignore case too).
            models.UniqueConstraint(Lower("merchant_id"), name="merchant_id_unique_any_case"),
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


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # waiting for its next attempt (next_attempt_at)
    SENDING = "sending"  # claimed by a worker; back to pending if that worker dies
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # final: attempts exhausted, 410 Gone, or the merchant went away


class WebhookEvent(models.Model):
    """One event to announce to merchants (an Intent.Surge): its exact body, the same for every
    merchant, and whether it has been fanned out to the merchants it fits.

    Written in the same transaction as what it announces (an outbox): one task, or the sweeper
    when that task was lost, turns it into one delivery per merchant.
    """

    # Sent as webhook-id on every attempt, so a merchant can drop the duplicates it sees.
    event_id = models.CharField(verbose_name="event ID", max_length=40, primary_key=True)
    event_type = models.CharField(max_length=32)
    intent_id = models.CharField(
        verbose_name="intent ID", max_length=40, null=True, blank=True, db_index=True
    )
    # What subscriptions are matched against: the intent's tags (lower case) and region.
    tags = JSONField(default=list, blank=True)
    region = models.CharField(max_length=2, null=True, blank=True)
    body = models.TextField(help_text="The exact JSON body signed and sent on every attempt.")
    created_at = models.DateTimeField(auto_now_add=True)
    fanned_out_at = models.DateTimeField(null=True, blank=True)
    # The W3C traceparent of the request that published the event, when it was traced: the
    # fan-out and every delivery attempt link to it, however late the sweeper sends them.
    traceparent = models.CharField(max_length=55, blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=Q(fanned_out_at__isnull=True),
                name="event_fan_out_due",
            )
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"


class WebhookDelivery(models.Model):
    """One event for one merchant: its state, and when to try next."""

    # Indexed by delivery_merchant_status and delivery_once, which they lead.
    merchant = models.ForeignKey(
        MerchantAgent, on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    event = models.ForeignKey(
        WebhookEvent, on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempt_count = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # When a task was last sent for it; the sweeper re-sends one that no worker picked up.
    enqueued_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(
        verbose_name="last HTTP status", null=True, blank=True
    )
    last_error = models.CharField(max_length=300, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # Where its latest attempt went (address and port, merchants/endpoints.py Destination.key):
    # the deliveries under way to one destination are bounded, whoever's merchant named it.
    destination = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="delivery_due"),
            models.Index(fields=["merchant", "status"], name="delivery_merchant_status"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=DeliveryStatus.values), name="delivery_status_valid"
            ),
            models.UniqueConstraint(fields=["event", "merchant"], name="delivery_once"),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} to {self.merchant.merchant_id}"


class AttemptOutcome(models.TextChoices):
    IN_FLIGHT = "in_flight"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    ABANDONED = "abandoned"  # the worker stopped before the merchant answered


class DeliveryAttempt(models.Model):
    """One HTTP request of a delivery: when, how long, and what came back."""

    delivery = models.ForeignKey(
        WebhookDelivery, on_delete=models.CASCADE, related_name="attempts", db_index=False
    )  # indexed by attempt_once, which it leads
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    outcome = models.CharField(
        max_length=16, choices=AttemptOutcome.choices, default=AttemptOutcome.IN_FLIGHT
    )
    status_code = models.PositiveSmallIntegerField(
        verbose_name="HTTP status", null=True, blank=True
    )
    latency_ms = models.PositiveIntegerField(verbose_name="latency (ms)", null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    # The start of the merchant's answer, for staff; never shown to anyone else.
    response_excerpt = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="attempt_once"),
            models.CheckConstraint(
                condition=Q(outcome__in=AttemptOutcome.values), name="attempt_outcome_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number}"


class VerificationAttempt(models.Model):
    """One request of an endpoint verification (merchants/verification.py) and what came of it:
    what the merchant reads in its deliveries log when its endpoint stays unverified. Only the
    attempts of the merchant's current verification are kept."""

    merchant = models.ForeignKey(  # indexed by verification_attempt_once, which it leads
        MerchantAgent,
        on_delete=models.CASCADE,
        related_name="verification_attempts_made",
        db_index=False,
    )
    # The verification's event (verification_event_id): the webhook-id of every attempt.
    event_id = models.CharField(verbose_name="event ID", max_length=40)
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    verified = models.BooleanField()
    status_code = models.PositiveSmallIntegerField(
        verbose_name="HTTP status", null=True, blank=True
    )
    latency_ms = models.PositiveIntegerField(
        verbose_name="latency (ms)",
    )
    error = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["merchant", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "event_id", "number"], name="verification_attempt_once"
            )
        ]

    def __str__(self) -> str:
        return f"verification attempt {self.number}"


class ProbeTrigger(models.TextChoices):
    SCHEDULE = "schedule"  # the beat task
    API = "api"  # GET /v1/merchant/{id}/health
    STAFF = "staff"  # the admin's "probe now"


class HealthProbe(models.Model):
    """One signed ping to a merchant agent and its result."""

    merchant = models.ForeignKey(
        MerchantAgent, on_delete=models.CASCADE, related_name="probes", db_index=False
    )  # indexed by probe_merchant_latest, which it leads
    checked_at = models.DateTimeField(db_index=True)
    healthy = models.BooleanField()
    status_code = models.PositiveSmallIntegerField(
        verbose_name="HTTP status", null=True, blank=True
    )
    latency_ms = models.PositiveIntegerField(verbose_name="latency (ms)", null=True, blank=True)
    error = models.CharField(max_length=300, blank=True, default="")
    trigger = models.CharField(max_length=16, choices=ProbeTrigger.choices)

    class Meta:
        ordering = ["-checked_at", "-id"]
        indexes = [models.Index(fields=["merchant", "-checked_at"], name="probe_merchant_latest")]

    def __str__(self) -> str:
        return f"probe of {self.merchant.merchant_id} at {self.checked_at:%Y-%m-%d %H:%M:%S}"
