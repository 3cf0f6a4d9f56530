"""Example bodies of the attribution endpoints, for the contract."""

from typing import Any

from drf_spectacular.utils import OpenApiExample

from catalog.examples import REC_ID

CONVERSION_REQUEST = OpenApiExample(
    "Conversion",
    summary="An order placed through a card's buy link",
    value={
        "merchant_agent_id": "acme-running",
        "rec_id": REC_ID,
        "order_id": "A-10293",
        "amount": 74.99,
        "currency": "USD",
        "occurred_at": "2025-11-20T10:02:00Z",
    },
    request_only=True,
)

CONVERSION_RESPONSE = OpenApiExample(
    "Conversion recorded",
    value={
        "conversion": {
            "conversion_id": "cnv_7d7a46f02af79d7f6aa67bfd",
            "merchant_agent_id": "acme-running",
            "order_id": "A-10293",
            "rec_id": REC_ID,
            "match_token_id": None,
            "product_id": 100001,
            "channel": "my-agent",
            "amount": 74.99,
            "currency": "USD",
            "quantity": 1,
            "occurred_at": "2025-11-20T10:02:00Z",
            "created_at": "2025-11-20T10:02:03Z",
            "flags": [],
        }
    },
    response_only=True,
    status_codes=[201, 200],
)


def _figures(**overrides: Any) -> dict[str, Any]:
    figures: dict[str, Any] = {
        "recommendations": 40,
        "clicks": 10,
        "unique_clicks": 9,
        "click_through_rate": 0.25,
        "match_sessions": 4,
        "accepted_matches": 1,
        "conversions": 2,
        "flagged_conversions": 0,
        "gmv_usd": 74.99,
        "conversion_rate": 0.2,
        "gmv_by_currency": {"EUR": 69.0, "USD": 74.99},
        "gmv_usd_total": 149.51,
        "gmv_unconverted": {},
    }
    return {**figures, **overrides}


REPORT_RESPONSE = OpenApiExample(
    "Report",
    summary="One day, one channel, one product",
    value={
        "window": {
            "days": 1,
            "since": "2025-11-20T00:00:00Z",
            "until": "2025-11-20T18:00:00Z",
        },
        "filters": {"channel": None, "product_id": None},
        "usd_rates": {"EUR": 1.08, "GBP": 1.27},
        "totals": _figures(),
        "by_day": [_figures(date="2025-11-20")],
        "by_channel": [_figures(channel="my-agent")],
        "by_product": [
            _figures(
                product_id=100001,
                title="Stridewell Stride 5 Stability Cushioned Road Running Shoe",
                creator="lucas.ortiz",
            )
        ],
        "by_creator": [_figures(username="lucas.ortiz", display_name="Lucas Ortiz", products=1)],
    },
    response_only=True,
)
