"""UCP's errors of the catalog: the gateway's error type (kernel/errors.py), answered in UCP's
error shape by agents/ucp/views.py."""

from kernel.errors import Error

UCP_BAD_CURSOR = Error(
    400,
    "invalid_cursor",
    "The cursor is not one this search returned, or it is more than a day old.",
    described="The cursor is not one this search returned to this client, or it is more than a "
    "day old.",
)
UCP_CURSOR_OF_ANOTHER_CLIENT = Error(
    400, "invalid_cursor", "The cursor was returned to another client: search again."
)
UCP_TOO_MANY_IDS = Error(400, "request_too_large", "Ask for at most {limit} ids at once.")
UCP_BAD_PROFILE = Error(
    400,
    "invalid_profile_url",
    "meta.ucp-agent.profile must be the platform's profile URL (http or https).",
)
