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
UCP_BAD_AGENT = Error(
    400,
    "invalid_profile_url",
    'The UCP-Agent header must name the platform\'s profile: profile="https://...".',
)
UCP_PROFILE_NOT_PUBLIC = Error(
    400,
    "invalid_profile_url",
    "The platform's profile URL must be an https URL of a public address.",
)
UCP_PROFILE_UNREACHABLE = Error(
    424,
    "profile_unreachable",
    "The platform's profile could not be fetched: {reason}",
    described="The platform's profile could not be fetched: no answer within 3 s, an answer "
    "other than 2xx (a redirect is not followed), or one larger than 256 KiB.",
)
UCP_PROFILE_MALFORMED = Error(
    422,
    "profile_malformed",
    "The platform's profile is no UCP profile: a JSON object whose ucp.version is a date "
    "(YYYY-MM-DD).",
)
UCP_VERSION_UNSUPPORTED = Error(
    422,
    "version_unsupported",
    "Version {version} is not supported. This business implements versions {releases}.",
    described="The platform's profile declares a UCP version the gateway does not speak.",
)
