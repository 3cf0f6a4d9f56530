"""A merchant's view of its deliveries, and of its endpoint's verification attempts."""

from datetime import datetime
from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from kernel.serializer_fields import JsonStringField, limit_field
from merchants.models import (
    AttemptOutcome,
    DeliveryStatus,
    MerchantAgent,
    VerificationAttempt,
    WebhookDelivery,
)
from merchants.serializers import BlankAsNullField, EndpointVerificationSerializer

# What each status and outcome means, for the contract (one enum each, shared by the filter and
# the representation).
DELIVERY_STATUSES = [
    (DeliveryStatus.PENDING.value, "waiting for its next attempt (next_retry_at)"),
    (DeliveryStatus.SENDING.value, "an attempt is under way"),
    (DeliveryStatus.SUCCEEDED.value, "an attempt was answered 2xx"),
    (
        DeliveryStatus.FAILED.value,
        "failed for good: attempts exhausted, 410 Gone, or nothing could be sent",
    ),
]
ATTEMPT_OUTCOMES = [
    (AttemptOutcome.IN_FLIGHT.value, "under way"),
    (AttemptOutcome.SUCCEEDED.value, "answered 2xx"),
    (AttemptOutcome.FAILED.value, "another answer, no answer in time, or not sent"),
    (AttemptOutcome.ABANDONED.value, "the worker stopped before the endpoint answered"),
]


class DeliveriesQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=DELIVERY_STATUSES, required=False, help_text="Only deliveries in this status."
    )
    cursor = JsonStringField(max_length=200, required=False)
    limit = limit_field(default=20, maximum=100)


class DeliveryEventSerializer(serializers.Serializer):
    webhook_id = JsonStringField(
        source="event_id",
        help_text="The event's id: the webhook-id header and the body's id of every attempt, "
        "the same on every retry.",
    )
    type = JsonStringField(source="event_type", help_text="The event's type: intent.surge.")
    intent_id = JsonStringField(allow_null=True, help_text="The intent the event announces.")


class DeliveryAttemptSerializer(serializers.Serializer):
    """One HTTP request of a delivery. The merchant's own answer is never shown."""

    number = serializers.IntegerField(help_text="1 for the first attempt.")
    started_at = serializers.DateTimeField()
    outcome = serializers.ChoiceField(choices=ATTEMPT_OUTCOMES)
    status_code = serializers.IntegerField(
        allow_null=True, help_text="The endpoint's HTTP status; null when it did not answer."
    )
    latency_ms = serializers.IntegerField(
        allow_null=True, help_text="How long the attempt took; null while it is under way."
    )
    error = BlankAsNullField(
        allow_null=True, help_text="Why the attempt failed, in the gateway's words; else null."
    )


def _moment(value: datetime | None) -> str | None:
    return serializers.DateTimeField().to_representation(value) if value else None


NULLABLE_MOMENT = serializers.DateTimeField(allow_null=True)


class DeliverySerializer(serializers.Serializer):
    """One event for the merchant: where it stands, and every attempt made."""

    delivery_id = serializers.IntegerField(source="pk")
    event = DeliveryEventSerializer()
    status = serializers.ChoiceField(choices=DELIVERY_STATUSES)
    attempt_count = serializers.IntegerField()
    attempts = DeliveryAttemptSerializer(many=True, help_text="Oldest first.")
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = BlankAsNullField(allow_null=True)
    next_retry_at = serializers.SerializerMethodField(
        help_text="When the next attempt is due; null unless the delivery is pending."
    )
    created_at = serializers.DateTimeField()
    delivered_at = serializers.SerializerMethodField(help_text="When an attempt succeeded.")
    failed_at = serializers.SerializerMethodField(help_text="When the delivery failed for good.")

    @extend_schema_field(NULLABLE_MOMENT)
    def get_next_retry_at(self, delivery: WebhookDelivery) -> str | None:
        pending = delivery.status == DeliveryStatus.PENDING
        return _moment(delivery.next_attempt_at if pending else None)

    @extend_schema_field(NULLABLE_MOMENT)
    def get_delivered_at(self, delivery: WebhookDelivery) -> str | None:
        succeeded = delivery.status == DeliveryStatus.SUCCEEDED
        return _moment(delivery.completed_at if succeeded else None)

    @extend_schema_field(NULLABLE_MOMENT)
    def get_failed_at(self, delivery: WebhookDelivery) -> str | None:
        failed = delivery.status == DeliveryStatus.FAILED
        return _moment(delivery.completed_at if failed else None)


class VerificationAttemptSerializer(serializers.Serializer):
    """One request of the endpoint's verification. The endpoint's own answer is never shown."""

    number = serializers.IntegerField(help_text="1 for the first attempt.")
    started_at = serializers.DateTimeField()
    outcome = serializers.SerializerMethodField(
        help_text="succeeded when the endpoint echoed the challenge, else failed."
    )
    status_code = serializers.IntegerField(
        allow_null=True, help_text="The endpoint's HTTP status; null when it did not answer."
    )
    latency_ms = serializers.IntegerField(help_text="How long the attempt took.")
    error = BlankAsNullField(
        allow_null=True, help_text="Why the attempt failed, in the gateway's words; else null."
    )

    # The deliveries' outcomes: a verification attempt is `succeeded` when the challenge came
    # back, else `failed`.
    @extend_schema_field(serializers.ChoiceField(choices=ATTEMPT_OUTCOMES))
    def get_outcome(self, attempt: VerificationAttempt) -> str:
        return AttemptOutcome.SUCCEEDED if attempt.verified else AttemptOutcome.FAILED


class EndpointVerificationLogSerializer(EndpointVerificationSerializer):
    attempts = VerificationAttemptSerializer(
        many=True, help_text="The current verification's attempts, oldest first."
    )


def verification_log(merchant: MerchantAgent, attempts: list[VerificationAttempt]) -> Any:
    """The merchant's verification with its attempts, for its deliveries log."""
    shown = EndpointVerificationSerializer(merchant).data
    return {**shown, "attempts": VerificationAttemptSerializer(attempts, many=True).data}


# Served by a `list` action, yet one object: never an array in the contract.
@extend_schema_serializer(many=False)
class DeliveriesPageSerializer(serializers.Serializer):
    merchant_id = JsonStringField()
    verification = EndpointVerificationLogSerializer(
        help_text="The endpoint's verification: until it is verified, no Intent.Surge is "
        "delivered. Its attempts are not deliveries and are listed here, not in deliveries."
    )
    count = serializers.IntegerField(help_text="Deliveries on this page.")
    deliveries = DeliverySerializer(many=True, help_text="Newest first.")
    next_cursor = JsonStringField(
        allow_null=True, help_text="Pass it back as cursor for the next page; null on the last."
    )


class DeliveryEnvelopeSerializer(serializers.Serializer):
    delivery = DeliverySerializer()
