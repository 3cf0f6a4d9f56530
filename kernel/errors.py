"""The error catalog: every error the API reports on purpose, its status, code and sentence,
written here once.

Services raise an entry (`raise CARD_NOT_FOUND()`, `MATCH_TOKEN_EXPIRED()`), views document it
(`errors({404: CARD_NOT_FOUND.doc()})`), and /openapi.json and its Chinese catalog read the same
text. A message may hold `{placeholders}`, filled when the error is raised; `described` says what
the documentation says when the message is written for one case of several.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rest_framework import exceptions


class ApiError(exceptions.APIException):
    """An error the API reports on purpose, with its status, code and sentence."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        fields: Mapping[str, list[str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status
        self.code = code
        self.message = message
        self.fields = dict(fields) if fields else None
        self.headers = dict(headers or {})


@dataclass(frozen=True)
class Error:
    status: int
    code: str
    message: str
    described: str = ""

    def __call__(
        self,
        *,
        fields: Mapping[str, list[str]] | None = None,
        headers: Mapping[str, str] | None = None,
        **values: Any,
    ) -> ApiError:
        return ApiError(
            self.status,
            self.code,
            self.message.format(**values),
            fields=dict(fields) if fields else None,
            headers=dict(headers) if headers else None,
        )

    def doc(self, detail: str = "") -> str:
        """The line of /openapi.json describing this error ("`code`: what it means.")."""
        text = detail or self.described or self.message
        return f"`{self.code}`: {text[:1].lower()}{text[1:]}"


def either(*docs: str) -> str:
    """Several errors of one status in one description."""
    return "; ".join(doc.rstrip(".") for doc in docs) + "."


# --- Lookups ------------------------------------------------------------------------------------
CARD_NOT_FOUND = Error(404, "not found", "No card was issued under that rec_id.")
RECOMMENDATION_NOT_FOUND = Error(404, "recommendation_not_found", CARD_NOT_FOUND.message)
PRODUCT_NOT_FOUND = Error(404, "product_not_found", "No product has that id.")
PROPOSED_PRODUCT_NOT_FOUND = Error(404, "product_not_found", "No product has that product_id.")
CREATOR_NOT_FOUND = Error(404, "creator_not_found", "No creator has that username.")
INTENT_NOT_FOUND = Error(404, "intent_not_found", "No intent has that intent_id.")
PROPOSAL_NOT_FOUND = Error(404, "proposal_not_found", "No proposal has that proposal_id.")
PROPOSALS_NOT_OF_INTENT = Error(
    404,
    "proposal_not_found",
    "Not proposals of this intent: {ids}.",
    described="A proposal_id is not a proposal of this intent.",
)
PROPOSAL_NOT_RANKED = Error(
    404, "proposal_not_found", "That proposal is not ranked in this match session."
)
MATCH_NOT_FOUND = Error(404, "match_not_found", "No match session has that match_session_id.")
MATCH_TOKEN_NOT_FOUND = Error(
    404, "match_token_not_found", "No match token has that match_token_id."
)
SESSION_TOKEN_NOT_FOUND = Error(
    404, "match_token_not_found", "No token of this match session has that id."
)
MERCHANT_NOT_FOUND = Error(404, "merchant_not_found", "No merchant agent has that merchant_id.")
DELIVERY_NOT_FOUND = Error(
    404, "delivery_not_found", "This merchant agent has no delivery with that delivery_id."
)

# --- Credentials --------------------------------------------------------------------------------
MISSING_TOKEN = Error(
    401,
    "missing registration token",
    "Send the X-Merchant-Token header.",
    described="No `X-Merchant-Token` header.",
)
INVALID_TOKEN = Error(
    403,
    "invalid registration token",
    "The registration token is not valid.",
    described="The token is unknown or another merchant's.",
)
OTHER_MERCHANTS_TOKEN = Error(
    403, "invalid registration token", "The registration token belongs to another merchant."
)
INVALID_DEMAND_TOKEN = Error(
    403,
    "invalid_demand_token",
    "The demand token is not this intent's: send the demand_token its creation answered, or none.",
    described="The demand token sent is not the credential of the match's intent.",
)
SUPPLY_KEY_REQUIRED = Error(
    401,
    "unauthorized",
    "Send a valid supply key in the X-Supply-Key header.",
    described="`X-Supply-Key` is absent or not a configured key.",
)
METRICS_TOKEN_REQUIRED = Error(
    401,
    "unauthorized",
    "Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.",
)
MERCHANT_DEACTIVATED = Error(
    403,
    "merchant_deactivated",
    "This merchant agent is deactivated; register again with its token to reactivate it.",
)

# --- The matching flow --------------------------------------------------------------------------
BAD_ENDPOINT = Error(400, "invalid_body", "agent_endpoint {problem}.")
PROPOSAL_UNAVAILABLE = Error(
    409,
    "proposal_unavailable",
    "The proposal is {status}; it cannot be accepted.",
    described="The proposal is no longer live.",
)
MATCH_ALREADY_ACCEPTED = Error(
    409, "match_already_accepted", "Another proposal of this match was accepted."
)
MATCH_EXPIRED = Error(409, "match_expired", "This match session has expired.")
MATCH_TOKEN_EXPIRED = Error(
    410, "match_token_expired", "The match token expired; mint a new match."
)
CONVERSION_CONFLICT = Error(
    409,
    "conversion_conflict",
    "This merchant already recorded that order_id with different facts.",
    described="The order_id was recorded with different facts.",
)
TOKEN_OF_ANOTHER_PROPOSAL = Error(
    400, "invalid_body", "proposal_id and match_token_id name different proposals."
)
CREDITS_DIFFERENT_PRODUCTS = Error(
    400, "invalid_body", "rec_id and match_token_id name different products."
)
ORDER_BEFORE_ITS_CREDIT = Error(
    400, "invalid_body", "occurred_at is before the card or match token it credits was issued."
)
MATCH_TOKEN_NOT_YOURS = Error(
    403, "match_token_not_yours", "That match token is for another merchant's proposal."
)
MATCH_TOKEN_NOT_ACCEPTED = Error(
    409,
    "match_token_not_accepted",
    "That match token was not accepted, so no sale can be credited to it.",
    described="The match token was not accepted.",
)

# --- A merchant's deliveries -------------------------------------------------------------------
DELIVERY_NOT_FAILED = Error(
    409,
    "delivery_not_failed",
    "The delivery is {status}; only a failed delivery can be retried.",
    described="The delivery has not failed: it is pending, being sent or delivered.",
)
DELIVERY_RETRY_LIMIT = Error(
    409,
    "delivery_retry_limit",
    "The delivery has had {limit} attempts, the most one delivery may have.",
    described="The delivery has had as many attempts as one delivery may have.",
)
ENDPOINT_UNVERIFIED = Error(
    409,
    "endpoint_unverified",
    "The agent endpoint has not proven its ownership yet: nothing is delivered to it until it "
    "echoes the challenge of its endpoint.verification event.",
)
DELIVERIES_DISABLED = Error(
    409,
    "deliveries_disabled",
    "Deliveries are off since the endpoint answered 410 Gone: register again with the token, "
    "or change the endpoint, to turn them back on.",
)

# --- Unavailable --------------------------------------------------------------------------------
SIGNING_KEY_UNAVAILABLE = Error(
    503,
    "signing_key_unavailable",
    "Intent mandates cannot be signed: no signing key is configured on this gateway.",
    described="No signing key is configured on the gateway.",
)
INTENT_ENGINE_UNAVAILABLE = Error(
    503,
    "intent_engine_unavailable",
    "The intent engine is not configured on this gateway (INTENT_ENGINE_MODEL), so shopping "
    "intents cannot be resolved.",
    described="The intent engine is not configured or did not answer.",
)
MERCHANT_UNHEALTHY = Error(
    503, "merchant_unhealthy", "The merchant agent is unhealthy or unreachable."
)
SERVICE_UNAVAILABLE = Error(
    503,
    "service_unavailable",
    "The gateway's {store} did not answer; retry after `Retry-After` seconds.",
    described="The gateway's database or cache did not answer (an outage, not a bug); retry "
    "after `Retry-After` seconds.",
)
SUPPLY_KEYS_NOT_CONFIGURED = Error(
    503,
    "supply_keys_not_configured",
    "The attribution report is closed: no supply keys are configured on this gateway "
    "(SUPPLY_API_KEYS).",
    described="No supply key is configured on the gateway (SUPPLY_API_KEYS), so no key can be "
    "accepted.",
)

# --- Shared by many operations ------------------------------------------------------------------
THROTTLED = Error(
    429,
    "throttled",
    "Too many requests from this client; retry after `Retry-After` seconds.",
)
PAYLOAD_TOO_LARGE = Error(
    413,
    "payload_too_large",
    "The request body is larger than {limit_kb} KB.",
    described="The request body is larger than 256 KB.",  # DATA_UPLOAD_MAX_MEMORY_SIZE
)
INVALID_PARAMETER = Error(
    400,
    "invalid_parameter",
    "Invalid query parameter: {names}.",
    described="A query value is missing, repeated, out of range or malformed; `fields` names each.",
)
BAD_CURSOR = Error(400, "invalid_parameter", "The cursor is not one this feed returned.")
INVALID_BODY = Error(400, "invalid_body", "Invalid request body: {names}.")
BODY_NOT_AN_OBJECT = Error(400, "invalid_body", "The request body must be a JSON object.")
MISSING_FIELDS = Error(400, "missing_fields", "Required fields are missing: {names}.")
REPEATED_PARAMETER = Error(400, "invalid_parameter", "Give each query parameter once: {names}.")
NOT_ACCEPTABLE = Error(
    406,
    "not_acceptable",
    "This resource is served as {offered}; the Accept header asks for none of them.",
    described="The Accept header asks for none of the types the resource is served as.",
)

# --- Idempotency-Key (kernel/idempotency.py) ---------------------------------------------------
INVALID_IDEMPOTENCY_KEY = Error(
    400,
    "invalid_idempotency_key",
    "Idempotency-Key must be 1 to 255 printable ASCII characters, without a space at either end.",
    described="The Idempotency-Key header is not 1 to 255 printable ASCII characters without a "
    "space at either end.",
)
IDEMPOTENCY_KEY_REUSED = Error(
    422,
    "idempotency_key_reused",
    "This Idempotency-Key was sent with another request (method, path or body): send a new key "
    "with a new request.",
)
IDEMPOTENCY_KEY_IN_FLIGHT = Error(
    409,
    "idempotency_key_in_flight",
    "A request with this Idempotency-Key is still being answered: retry it in a moment.",
)
IDEMPOTENCY_ANSWER_NOT_KEPT = Error(
    409,
    "idempotency_answer_not_kept",
    "The request first sent with this Idempotency-Key ran and answered {status} ({size} bytes, "
    "too large to keep){named}: read the resource, or send the request again under a new key.",
    described="The request first sent with this Idempotency-Key ran, and its answer was too "
    "large to keep (over 6 KB deflated): read the resource, or send the request under a new key.",
)
IDEMPOTENCY_KEY_LIMIT = Error(
    429,
    "idempotency_key_limit",
    "This client holds {limit} live Idempotency-Keys, the most it may: retry after "
    "`Retry-After` seconds, or send the request without a key.",
    described="This client holds as many live Idempotency-Keys as it may "
    "(IDEMPOTENCY_KEYS_PER_CLIENT, 1,000 a day): retry after `Retry-After` seconds, or send "
    "the request without a key.",
)

# --- Agent protocols (A2A, MCP) -----------------------------------------------------------------
UNKNOWN_OPERATION = Error(400, "unknown_operation", "No operation is called {name!r}; ask {names}.")
NOT_ARGUMENTS = Error(400, "invalid_arguments", "The arguments of {operation} must be an object.")
UNKNOWN_ARGUMENTS = Error(400, "invalid_arguments", "Not arguments of {operation}: {names}.")
MISSING_ARGUMENTS = Error(400, "missing_fields", "Required arguments are missing: {names}.")
NOT_A_PATH_VALUE = Error(400, "invalid_arguments", "{names} must be non-empty strings.")
