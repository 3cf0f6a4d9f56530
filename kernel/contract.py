"""What /openapi.json says of shared things: the error responses, typed id parameters, and
what a view's mixins add to its operations (`GatewaySchema`)."""

from collections.abc import Mapping
from typing import Any

from drf_spectacular.extensions import (
    OpenApiSerializerExtension,
)
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from kernel import errors as catalog
from kernel import idempotency

# --- Shared serializers ------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    """The error envelope: every error of the gateway has this shape."""

    error = serializers.CharField(help_text="Machine-readable error code.")
    message = serializers.CharField(help_text="A sentence for a person.")
    # The metaclass moves declared fields off the class, so this shadows nothing at run time.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Present on validation errors: each offending field and its messages.",
    )


def errors(described: Mapping[int, str]) -> dict[int, OpenApiResponse]:
    """An operation's error responses for the contract: each status with the envelope and a
    description naming the codes it carries."""
    return {
        status: OpenApiResponse(ErrorSerializer, description=text)
        for status, text in described.items()
    }


# Descriptions of the errors many operations share, from the error catalog.
THROTTLED = catalog.THROTTLED.doc()
TOO_LARGE = catalog.PAYLOAD_TOO_LARGE.doc()
BAD_QUERY = catalog.INVALID_PARAMETER.doc()
MISSING_TOKEN = catalog.MISSING_TOKEN.doc()
INVALID_TOKEN = catalog.INVALID_TOKEN.doc()
BAD_BODY = (
    catalog.either(
        catalog.MISSING_FIELDS.doc("a required field is absent"),
        catalog.INVALID_BODY.doc("the body is not a JSON object or a field is invalid"),
    )
    + " `fields` names each."
)


class GatewaySchema(AutoSchema):
    """drf-spectacular's AutoSchema (DEFAULT_SCHEMA_CLASS), plus what a view's mixins add to its
    operations: the Idempotency-Key of an idempotent view's POSTs (kernel/idempotency.py)."""

    def get_operation(
        self, path: str, path_regex: str, path_prefix: str, method: str, registry: Any
    ) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(
            path, path_regex, path_prefix, method, registry
        )
        if operation is not None and idempotency.applies(self.view, method):
            envelope = self.resolve_serializer(ErrorSerializer, "response").ref
            idempotency.document(operation, envelope)
        return operation


def id_parameter(name: str, prefix: str, description: str) -> OpenApiParameter:
    """A path parameter holding an id the gateway minted with `prefix` (see `new_id`)."""
    return OpenApiParameter(
        name,
        OpenApiTypes.STR,
        OpenApiParameter.PATH,
        pattern=rf"^{prefix}_[0-9a-f]{{24}}$",
        description=description,
    )


# A request body that must carry at least one of `at_least_one_of` as a non-null string. The
# serializer's `validate` enforces it; the contract states it as an `anyOf`, so a body with none
# of them is invalid by the schema too. (No docstring: it would become the bodies' description.)
class AtLeastOneOfSerializer(serializers.Serializer):
    at_least_one_of: tuple[str, ...] = ()


class AtLeastOneOfExtension(OpenApiSerializerExtension):
    target_class = AtLeastOneOfSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        if direction == "request":
            schema["anyOf"] = [
                {"required": [name], "properties": {name: {"type": "string"}}}
                for name in self.target.at_least_one_of
            ]
        return schema
