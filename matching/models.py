"""The intent-matching protocol: intents, proposals, match sessions and match tokens."""

from datetime import datetime

from django.db import models
from django.db.models import Q

from catalog.models import Product
from kernel.fields import JSONField
from merchants.models import MerchantAgent


class ResolutionSource(models.TextChoices):
    ENGINE = "engine"
    ENGINE_CACHED = "engine_cached"
    CLIENT = "client"  # the demand agent sent intent_tags itself
    UNRESOLVED = "unresolved"


class Intent(models.Model):
    """A shopper's need, as a demand agent stated it."""

    intent_id = models.CharField(verbose_name="intent ID", max_length=40, primary_key=True)
    raw_query = models.TextField()
    normalized_query = models.CharField(max_length=500, null=True, blank=True)
    intent_tags = JSONField(default=list, blank=True)
    target_audience = models.CharField(max_length=200, null=True, blank=True)
    budget_range = JSONField(null=True, blank=True)
    region = models.CharField(max_length=2, null=True, blank=True)
    constraints = JSONField(default=list, blank=True)
    source_channel = models.CharField(max_length=64, null=True, blank=True)
    resolution_source = models.CharField(
        max_length=16, choices=ResolutionSource.choices, default=ResolutionSource.UNRESOLVED
    )
    resolution_summary = models.CharField(max_length=500, null=True, blank=True)
    # An unresolved intent is tried again on a schedule (matching/intent_resolution.py): how
    # often the engine was asked, when it may be asked next (null: never again, once resolved
    # or given up), and why the last attempt failed.
    resolution_attempts = models.PositiveSmallIntegerField(default=0)
    next_resolution_at = models.DateTimeField(null=True, blank=True)
    resolution_error = models.CharField(max_length=300, blank=True, default="")
    metadata = JSONField(default=dict, blank=True)
    # The SHA-256 digest of the demand side's credential (matching/demand.py), answered once to
    # the request that created the intent; empty for intents recorded before credentials.
    demand_token_hash = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-intent_id"]
        indexes = [
            # The sweep's question: the unresolved intents due for another attempt.
            models.Index(
                fields=["next_resolution_at"],
                condition=Q(next_resolution_at__isnull=False),
                name="intent_resolution_due",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(resolution_source__in=ResolutionSource.values),
                name="intent_resolution_source_valid",
            ),
            models.CheckConstraint(
                condition=Q(resolution_source=ResolutionSource.UNRESOLVED)
                | Q(next_resolution_at__isnull=True),
                name="intent_retried_only_while_unresolved",
            ),
        ]

    def __str__(self) -> str:
        return self.intent_id

    @property
    def resolution_given_up(self) -> bool:
        return self.resolution_source == ResolutionSource.UNRESOLVED and (
            self.next_resolution_at is None
        )


class IntentTag(models.Model):
    """One tag of an intent, indexed, so merchants' subscriptions are matched in the database."""

    intent = models.ForeignKey(Intent, on_delete=models.CASCADE, related_name="tags")
    tag = models.CharField(max_length=64)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tag", "intent"], name="intent_tag_unique")]

    def __str__(self) -> str:
        return self.tag


class ProposalStatus(models.TextChoices):
    SUBMITTED = "submitted"
    ACCEPTED = "accepted"
    SUPERSEDED = "superseded"  # the merchant proposed the same product again
    WITHDRAWN = "withdrawn"  # the merchant was deactivated
    EXPIRED = "expired"  # valid_until has passed (shown, not stored: time alone expires it)


class Provenance(models.TextChoices):
    MERCHANT = "merchant"
    CATALOG = "catalog"


class Proposal(models.Model):
    """A merchant agent's offer of one product against one intent."""

    proposal_id = models.CharField(verbose_name="proposal ID", max_length=40, primary_key=True)
    # Null for the gateway's own catalog proposals (provenance "catalog").
    merchant = models.ForeignKey(
        MerchantAgent,
        on_delete=models.PROTECT,
        related_name="proposals",
        null=True,
        blank=True,
        db_index=False,  # indexed by proposal_merchant_status, which it leads
    )
    intent = models.ForeignKey(
        Intent, on_delete=models.CASCADE, related_name="proposals", db_index=False
    )  # indexed by proposal_intent_status, which it leads
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="proposals")
    offer_title = models.CharField(max_length=300)
    price = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    inventory_status = models.CharField(max_length=16, default="unknown")
    shipping_commitment = JSONField(default=dict, blank=True)
    commission_plan = JSONField(default=dict, blank=True)
    service_terms = JSONField(default=dict, blank=True)
    evidence = JSONField(default=list, blank=True)
    valid_until = models.DateTimeField(null=True, blank=True)
    proposal_score_inputs = JSONField(verbose_name="score inputs", default=dict, blank=True)
    product_snapshot = JSONField(null=True, blank=True)
    metadata = JSONField(default=dict, blank=True)
    provenance = models.CharField(
        max_length=16, choices=Provenance.choices, default=Provenance.MERCHANT
    )
    status = models.CharField(
        max_length=16, choices=ProposalStatus.choices, default=ProposalStatus.SUBMITTED
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "proposal_id"]
        indexes = [
            models.Index(fields=["intent", "status"], name="proposal_intent_status"),
            models.Index(fields=["merchant", "status"], name="proposal_merchant_status"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=ProposalStatus.values), name="proposal_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(price__isnull=True) | Q(price__gte=0), name="proposal_price_gte_0"
            ),
            # One live proposal per merchant, intent and product: a new one supersedes.
            models.UniqueConstraint(
                fields=["merchant", "intent", "product"],
                condition=Q(status=ProposalStatus.SUBMITTED),
                name="proposal_one_submitted_per_merchant_product",
            ),
            models.CheckConstraint(
                condition=Q(provenance=Provenance.CATALOG, merchant__isnull=True)
                | Q(provenance=Provenance.MERCHANT, merchant__isnull=False),
                name="proposal_merchant_iff_merchant_provenance",
            ),
        ]

    def __str__(self) -> str:
        return self.proposal_id

    def status_at(self, now: datetime) -> str:
        """The status as of `now`: a submitted proposal past its valid_until is expired."""
        if self.status == ProposalStatus.SUBMITTED and self.valid_until and self.valid_until <= now:
            return ProposalStatus.EXPIRED
        return self.status

    def is_live(self, now: datetime) -> bool:
        return self.status_at(now) == ProposalStatus.SUBMITTED


class MatchStatus(models.TextChoices):
    OPEN = "open"
    ACCEPTED = "accepted"
    EXPIRED = "expired"


class MatchSession(models.Model):
    """A ranking of an intent's proposals, frozen when it was made."""

    match_session_id = models.CharField(
        verbose_name="match session ID", max_length=40, primary_key=True
    )
    intent = models.ForeignKey(Intent, on_delete=models.CASCADE, related_name="match_sessions")
    best_proposal = models.ForeignKey(
        Proposal, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    ranked_proposals = JSONField(default=list)
    summary = JSONField(default=dict)
    # The cards of the ranked products, issued once with the session and served on every read.
    card_rec_ids = JSONField(verbose_name="card recommendation IDs", default=list, blank=True)
    status = models.CharField(max_length=16, choices=MatchStatus.choices, default=MatchStatus.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=MatchStatus.values), name="match_status_valid"
            )
        ]

    def __str__(self) -> str:
        return self.match_session_id


class AcceptanceState(models.TextChoices):
    ISSUED = "issued"
    ACCEPTED = "accepted"
    SUPERSEDED = "superseded"  # another token of the session was accepted
    EXPIRED = "expired"  # shown, not stored: expires_at alone expires it


class ConfirmedBy(models.TextChoices):
    """Who confirmed a match token, by the credential the confirmation carried."""

    DEMAND = "demand", "with the intent's demand credential"
    MERCHANT = "merchant", "with a merchant's X-Merchant-Token, no demand credential"
    ANONYMOUS = "anonymous", "with no credential"


class MatchToken(models.Model):
    """The agreement on one ranked proposal: minted (issued), then confirmed (accepted)."""

    match_token_id = models.CharField(
        verbose_name="match token ID", max_length=40, primary_key=True
    )
    session = models.ForeignKey(
        MatchSession, on_delete=models.CASCADE, related_name="tokens", db_index=False
    )  # indexed by match_token_unique, which it leads
    intent = models.ForeignKey(Intent, on_delete=models.CASCADE, related_name="match_tokens")
    proposal = models.ForeignKey(Proposal, on_delete=models.PROTECT, related_name="match_tokens")
    acceptance_state = models.CharField(
        max_length=16, choices=AcceptanceState.choices, default=AcceptanceState.ISSUED
    )
    intent_snapshot = JSONField()
    proposal_snapshot = JSONField()
    ranking_snapshot = JSONField()
    trace_ids = JSONField(
        verbose_name="trace IDs",
    )
    issued_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    # The merchant whose X-Merchant-Token came with the confirmation, if one did: a sale credited
    # through a token its own merchant accepted is self-dealt (reporting's conversions policy).
    accepted_by = models.ForeignKey(
        MerchantAgent,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="accepted_tokens",
    )
    # Only a confirmation with the intent's demand credential is the demand side's decision;
    # a sale credited through any other earns nothing (reporting's conversions policy).
    confirmed_by = models.CharField(
        max_length=16, choices=ConfirmedBy.choices, null=True, blank=True
    )

    class Meta:
        ordering = ["issued_at", "match_token_id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "proposal"], name="match_token_unique"),
            models.CheckConstraint(
                condition=Q(acceptance_state__in=AcceptanceState.values),
                name="match_token_state_valid",
            ),
            models.CheckConstraint(
                condition=Q(acceptance_state=AcceptanceState.ACCEPTED)
                | Q(accepted_at__isnull=True),
                name="match_token_accepted_at_only_when_accepted",
            ),
            models.CheckConstraint(
                condition=Q(acceptance_state=AcceptanceState.ACCEPTED, confirmed_by__isnull=False)
                | (~Q(acceptance_state=AcceptanceState.ACCEPTED) & Q(confirmed_by__isnull=True)),
                name="match_token_confirmed_by_iff_accepted",
            ),
            models.CheckConstraint(
                condition=Q(confirmed_by__isnull=True) | Q(confirmed_by__in=ConfirmedBy.values),
                name="match_token_confirmed_by_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.match_token_id

    def state_at(self, now: datetime) -> str:
        if self.acceptance_state == AcceptanceState.ISSUED and self.expires_at <= now:
            return AcceptanceState.EXPIRED
        return self.acceptance_state


class IntentMandate(models.Model):
    """A signed intent mandate as issued: the exact bytes signed and their signature, for audit.

    The mandate itself is stateless (anyone verifies it with the published key); this row records
    what the gateway signed, with which key, for whom."""

    mandate_id = models.CharField(verbose_name="mandate ID", max_length=40, primary_key=True)
    product = models.ForeignKey(Product, on_delete=models.PROTECT, related_name="intent_mandates")
    amount_limit = models.DecimalField(max_digits=16, decimal_places=4)
    currency = models.CharField(max_length=3)
    key_id = models.CharField(
        verbose_name="key ID",
        max_length=64,
        help_text="The kid (RFC 7638 thumbprint) it was signed with.",
    )
    canonical_payload = models.TextField(help_text="The RFC 8785 canonical JSON that was signed.")
    algorithm = models.CharField(
        max_length=8, help_text="ES256 or RS256: the algorithm of the key it was signed with."
    )
    signature = models.TextField(help_text="The JWS signature of canonical_payload, base64url.")
    issued_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-issued_at", "-mandate_id"]
        indexes = [models.Index(fields=["issued_at"], name="mandate_issued_at")]
        constraints = [
            models.CheckConstraint(condition=Q(amount_limit__gt=0), name="mandate_amount_gt_0"),
            models.CheckConstraint(
                condition=Q(expires_at__gt=models.F("issued_at")),
                name="mandate_expires_after_issue",
            ),
        ]

    def __str__(self) -> str:
        return self.mandate_id
