"""The API's throttle scopes and their default rates (REST_FRAMEWORK's DEFAULT_THROTTLE_RATES,
kernel/throttles.py). Every POST that takes an Idempotency-Key has a scope: each key is a row.
"""

# Throttle scopes of the API (DESIGN.md section 4). THROTTLE_RATES overrides them as
# "recommend=120/min,register=30/min", or "off" to disable throttling altogether.
DEFAULT_THROTTLE_RATES: dict[str, str | None] = {
    "recommend": "120/min",
    "intents": "60/min",
    "register": "30/min",
    "health": "30/min",
    "mandates": "30/min",
    "mandate_verify": "600/min",
    "match": "120/min",
    "accept": "60/min",  # minting and confirming match tokens
    "proposals": "120/min",  # per merchant
    "merchant_commands": "60/min",  # per merchant: heartbeat, verify, rotate-token, deactivate
    "delivery_retry": "30/min",  # per merchant
    "endpoint_change": "10/hour",  # per merchant: each change sends a verification POST
    "cards": "600/min",
    "buy_link": "60/min",
    "conversions": "600/min",
    "report": "60/min",
    "a2a": "120/min",  # every A2A request, task reads included
    "mcp": "300/min",  # every MCP request, lists and notifications included
}
