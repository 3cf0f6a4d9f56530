"""Intents: creation, validation, lookup, and the merchants' polling feed."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from kernel.serializer_fields import NOT_SPACE
from matching.models import Intent, IntentTag
from tests.protocol import create_intent, get, post, register

pytestmark = pytest.mark.django_db


def test_intent_without_tags_waits_unresolved(client):
    response = post(client, "/v1/intents", {"raw_query": "  a warm jacket for hiking  "})

    assert response.status_code == 201
    intent = response.json()["intent"]
    assert intent["intent_id"].startswith("int_")
    assert intent["raw_query"] == "a warm jacket for hiking"
    assert intent["resolution_source"] == "unresolved"
    assert intent["intent_tags"] == []
    assert intent["constraints"] == []
    assert intent["budget_range"] is None
    assert not IntentTag.objects.exists()


def test_intent_with_client_tags_is_client_resolved_and_normalised(client):
    intent = create_intent(
        client,
        intent_tags=["Running", " trail ", "running"],
        region="us",
        audience="trail runners",
        budget_range={"min": 50, "max": 120, "currency": "usd"},
        constraints={"waterproof": True, "size": "42"},
        source_channel="agent.test",
        metadata={"session": "abc"},
    )

    assert intent["resolution_source"] == "client"
    assert intent["intent_tags"] == ["running", "trail"]
    assert intent["region"] == "US"
    assert intent["target_audience"] == "trail runners"
    assert intent["budget_range"] == {"min": 50.0, "max": 120.0, "currency": "USD"}
    assert intent["constraints"] == ["waterproof: true", "size: 42"]
    assert intent["source_channel"] == "agent.test"
    assert sorted(IntentTag.objects.values_list("tag", flat=True)) == ["running", "trail"]


@pytest.mark.parametrize(
    ("constraints", "stored"),
    [
        (["vegan", "vegan", " "], ["vegan"]),
        ("no plastic", ["no plastic"]),
        ({}, []),
        # An object's values other than strings keep JSON's syntax, never Python's.
        (
            {"vegan": False, "sizes": [42, 43.5], "fit": {"wide": True}, "color": None},
            ["vegan: false", "sizes: [42, 43.5]", 'fit: {"wide": true}', "color: null"],
        ),
        ({"colors": ["caf\u00e9", "noir"]}, ['colors: ["caf\u00e9", "noir"]']),
        # The contract's bounds, reached: 20 items of 200 characters (repeats dropped after).
        (["x" * 200] * 20, ["x" * 200]),
        ({f"k{n:02}": "v" * 195 for n in range(20)}, [f"k{n:02}: " + "v" * 195 for n in range(20)]),
    ],
)
def test_constraints_accept_an_array_an_object_or_a_string(client, constraints, stored):
    assert create_intent(client, constraints=constraints)["constraints"] == stored


@pytest.mark.parametrize(
    ("body", "error", "field"),
    [
        ({}, "missing_fields", "raw_query"),
        ({"raw_query": ""}, "invalid_body", "raw_query"),
        ({"raw_query": "x" * 10_000}, "invalid_body", "raw_query"),
        # Measured as sent, as the contract's maxLength: not once trimmed.
        ({"raw_query": "x" * 2000 + " "}, "invalid_body", "raw_query"),
        ({"raw_query": "x", "region": "USA"}, "invalid_body", "region"),
        ({"raw_query": "x", "region": "US\x1e"}, "invalid_body", "region"),  # as sent
        (
            {"raw_query": "x", "budget_range": {"min": 90, "max": 10}},
            "invalid_body",
            "budget_range",
        ),
        ({"raw_query": "x", "budget_range": {"max": -1}}, "invalid_body", "budget_range"),
        (
            {"raw_query": "x", "budget_range": {"currency": "dollars"}},
            "invalid_body",
            "budget_range",
        ),
        ({"raw_query": "x", "constraints": [1, 2]}, "invalid_body", "constraints"),
        (
            {"raw_query": "x", "constraints": [f"c{n}" for n in range(21)]},
            "invalid_body",
            "constraints",
        ),
        # The bounds hold for what was sent, as the contract states them: 21 items, however
        # many repeat; 201 characters, however many are spaces; 21 members.
        ({"raw_query": "x", "constraints": ["vegan"] * 21}, "invalid_body", "constraints"),
        ({"raw_query": "x", "constraints": [" " * 201]}, "invalid_body", "constraints"),
        ({"raw_query": "x", "constraints": "x" * 201}, "invalid_body", "constraints"),
        (
            {"raw_query": "x", "constraints": {f"k{n}": True for n in range(21)}},
            "invalid_body",
            "constraints",
        ),
        ({"raw_query": "x", "constraints": {"k": "v" * 198}}, "invalid_body", "constraints"),
        ({"raw_query": "x", "intent_tags": ["t"] * 21}, "invalid_body", "intent_tags"),
        ({"raw_query": 7}, "invalid_body", "raw_query"),
        ({"raw_query": "x", "budget_range": {"max": True}}, "invalid_body", "budget_range"),
        ({"raw_query": "x", "budget_range": {"max": "100"}}, "invalid_body", "budget_range"),
    ],
)
def test_bad_intent_bodies_are_400_naming_the_field(client, body, error, field):
    response = post(client, "/v1/intents", body)

    assert response.status_code == 400
    assert response.json()["error"] == error
    assert field in response.json()["fields"]
    assert not Intent.objects.exists()


def test_intent_lookup(client):
    created = create_intent(client, intent_tags=["x"])

    response = client.get(f"/v1/intents/{created['intent_id']}")

    assert response.status_code == 200
    assert response.json() == {"intent": created}


@pytest.mark.parametrize("intent_id", ["int_000000000000000000000000", "nope", "int_%00"])
def test_unknown_intent_is_404(client, intent_id):
    for path in (f"/v1/intents/{intent_id}", f"/v1/intents/{intent_id}/proposals"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["error"] == "intent_not_found"


# --- The merchants' polling feed ---------------------------------------------------------------


def ids(response) -> list[str]:
    return [intent["intent_id"] for intent in response.json()["intents"]]


def test_feed_lists_the_intents_that_fit_the_merchants_subscriptions(client):
    shop = register(client, "shop-1", subscription_tags=["Running"])
    running = create_intent(client, intent_tags=["running", "shoes"])
    create_intent(client, intent_tags=["cookware"])
    create_intent(client)  # unresolved: no tags yet
    running_too = create_intent(client, intent_tags=["RUNNING"])

    response = get(client, "/v1/intents", shop.token)

    assert response.status_code == 200
    assert ids(response) == [running_too["intent_id"], running["intent_id"]]
    assert response.json()["count"] == 2
    assert response.json()["next_cursor"] is None


def test_a_star_subscription_sees_every_intent(client):
    shop = register(client, "shop-1", subscription_tags=["*"])
    for tags in (["a"], ["b"], None):
        create_intent(client, intent_tags=tags) if tags else create_intent(client)

    assert len(ids(get(client, "/v1/intents", shop.token))) == 3


def test_a_merchant_with_regions_sees_its_regions_and_intents_without_one(client):
    shop = register(client, "shop-1", subscription_tags=["*"], regions=["DE"])
    german = create_intent(client, intent_tags=["x"], region="DE")
    create_intent(client, intent_tags=["x"], region="US")
    anywhere = create_intent(client, intent_tags=["x"])

    assert ids(get(client, "/v1/intents", shop.token)) == [
        anywhere["intent_id"],
        german["intent_id"],
    ]


def test_feed_pages_with_a_cursor_without_repeats_or_gaps(client):
    shop = register(client, "shop-1", subscription_tags=["x"])
    created = [create_intent(client, intent_tags=["x"])["intent_id"] for _ in range(25)]

    seen, cursor, pages = [], None, 0
    while True:
        query = {"limit": 10, **({"cursor": cursor} if cursor else {})}
        page = get(client, "/v1/intents", shop.token, **query).json()
        seen += [intent["intent_id"] for intent in page["intents"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break

    assert pages == 3
    assert seen == list(reversed(created))


def test_feed_since_filter(client):
    shop = register(client, "shop-1", subscription_tags=["x"])
    create_intent(client, intent_tags=["x"])
    later = create_intent(client, intent_tags=["x"])

    response = get(client, "/v1/intents", shop.token, since=later["created_at"])

    assert ids(response) == [later["intent_id"]]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"cursor": "garbage"}, "cursor"),
        ({"limit": "0"}, "limit"),
        ({"limit": "101"}, "limit"),
        ({"limit": ""}, "limit"),  # no integer: never read as absent, the default
        ({"since": "yesterday"}, "since"),
    ],
)
def test_feed_refuses_bad_parameters(client, query, field):
    shop = register(client, "shop-1", subscription_tags=["x"])

    response = get(client, "/v1/intents", shop.token, **query)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_parameter"
    assert field in response.json()["fields"]


def test_feed_needs_a_valid_token(client):
    register(client, "shop-1", subscription_tags=["x"])

    assert get(client, "/v1/intents").status_code == 401
    assert get(client, "/v1/intents", "mrt_wrong").status_code == 403


def test_a_deactivated_merchant_gets_no_feed(client):
    shop = register(client, "shop-1", subscription_tags=["x"])
    post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token)

    response = get(client, "/v1/intents", shop.token)

    assert (response.status_code, response.json()["error"]) == (403, "merchant_deactivated")


def test_feed_query_count_does_not_grow_with_the_page(client):
    shop = register(client, "shop-1", subscription_tags=["x"])
    for _ in range(30):
        create_intent(client, intent_tags=["x"])

    counts = []
    for limit in (1, 30):
        with CaptureQueriesContext(connection) as queries:
            get(client, "/v1/intents", shop.token, limit=limit)
        counts.append(len(queries))

    assert counts[0] == counts[1] <= 3


def test_an_intent_nested_too_deep_or_with_nul_is_refused_and_not_stored(client):
    deep: dict = {}
    node = deep
    for _ in range(40):
        node["k"] = {}
        node = node["k"]

    for metadata in (deep, {"note": "a\u0000b"}, {"k\u0000": 1}):
        response = post(client, "/v1/intents", {"raw_query": "x", "metadata": metadata})
        assert (response.status_code, response.json()["error"]) == (400, "invalid_body")
    assert not Intent.objects.exists()


def test_a_forged_cursor_at_the_end_of_time_is_400(client):
    import base64

    shop = register(client, "shop-1", subscription_tags=["x"])
    raw = "9999-12-31T23:59:59-23:59|int_000000000000000000000000"
    cursor = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    response = get(client, "/v1/intents", shop.token, cursor=cursor)

    assert (response.status_code, response.json()["error"]) == (400, "invalid_parameter")


def test_the_contract_describes_the_feed_as_one_object_and_a_null_budget_as_valid(client):
    """The feed (a `list` action) is one object, and an intent without a budget, whose
    budget_range is null, satisfies the Intent schema (a nullable JSONField was described as
    `oneOf: [{}, null]`, which null matches twice)."""
    from jsonschema import Draft202012Validator

    merchant = register(client, "shoes-shop", subscription_tags=["running"])
    create_intent(client, intent_tags=["running"])
    schema = client.get("/openapi.json").json()
    answer = schema["paths"]["/v1/intents"]["get"]["responses"]["200"]["content"]
    declared = answer["application/json"]["schema"]
    body = get(client, "/v1/intents", token=merchant.token).json()

    assert declared == {"$ref": "#/components/schemas/IntentFeed"}
    assert body["intents"][0]["budget_range"] is None
    Draft202012Validator({**declared, "components": schema["components"]}).validate(body)


@pytest.mark.parametrize("channel", [0, 1.5, True, ["a"]])
def test_a_source_channel_that_is_not_a_string_is_refused(client, channel):
    response = post(client, "/v1/intents", {"raw_query": "x", "source_channel": channel})

    assert response.status_code == 400
    assert response.json()["fields"].keys() == {"source_channel"}
    assert not Intent.objects.exists()


def test_the_contract_asks_trimmed_strings_for_a_non_space_character(client):
    """DRF trims strings and refuses a blank one: "   " is no raw_query, by the contract too
    (NOT_SPACE: a character str.strip() keeps)."""
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    response = post(client, "/v1/intents", {"raw_query": "   "})

    assert schema["IntentCreateRequest"]["properties"]["raw_query"]["pattern"] == NOT_SPACE
    assert response.status_code == 400
    assert response.json()["fields"].keys() == {"raw_query"}
