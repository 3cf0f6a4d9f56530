"""A caller's `metadata` is kept and served back as it came, so every resource that takes it
bounds it: at most 16 KB (16,384 bytes) as compact JSON, 400 naming the field beyond, on every
resource (intents, proposals, merchant registration and its PATCH)."""

import pytest

from kernel.serializer_fields import METADATA_MAX_BYTES
from matching.models import Intent, Proposal
from merchants.models import MerchantAgent
from tests.factories import ProductFactory
from tests.protocol import create_intent, endpoint_of, patch, post, propose, register

pytestmark = pytest.mark.django_db

REFUSED = {"metadata": ["metadata may hold at most 16 KB (16384 bytes) as compact JSON."]}


def metadata_of(size: int) -> dict[str, str]:
    """An object of exactly `size` bytes as compact JSON: {"note":"xx..."}."""
    return {"note": "x" * (size - len('{"note":""}'))}


def refused(response) -> bool:
    body = response.json()
    return (response.status_code, body["error"], body["fields"]) == (400, "invalid_body", REFUSED)


def test_an_intents_metadata_up_to_16_kb_is_kept_and_more_is_refused(client):
    kept = create_intent(client, intent_tags=["x"], metadata=metadata_of(METADATA_MAX_BYTES))
    over = post(
        client,
        "/v1/intents",
        {"raw_query": "trail shoes", "metadata": metadata_of(METADATA_MAX_BYTES + 1)},
    )
    # 8,187 characters of two bytes each: 16,385 bytes, counted as bytes, not as characters.
    wide = post(
        client, "/v1/intents", {"raw_query": "trail shoes", "metadata": {"note": "é" * 8187}}
    )

    assert kept["metadata"] == metadata_of(METADATA_MAX_BYTES)
    assert refused(over)
    assert refused(wide)
    assert Intent.objects.count() == 1


def test_a_proposals_metadata_is_bounded(client):
    ProductFactory(id=1001)
    merchant = register(client, "shop-a")
    intent_id = create_intent(client, intent_tags=["x"])["intent_id"]

    over = propose(client, merchant, intent_id, 1001, metadata=metadata_of(250_000))
    kept = propose(client, merchant, intent_id, 1001, metadata=metadata_of(METADATA_MAX_BYTES))

    assert refused(over)
    assert kept.status_code == 201
    assert Proposal.objects.get().metadata == metadata_of(METADATA_MAX_BYTES)


def test_a_merchants_metadata_is_bounded_at_registration_and_in_a_patch(client):
    body = {"merchant_id": "shop-b", "agent_endpoint": endpoint_of("shop-b")}
    over = post(
        client, "/v1/merchant/register", {**body, "metadata": metadata_of(METADATA_MAX_BYTES + 1)}
    )
    merchant = register(client, "shop-b", metadata={"tier": "gold"})

    changed = patch(
        client,
        "/v1/merchant/shop-b",
        {"metadata": metadata_of(METADATA_MAX_BYTES + 1)},
        merchant.token,
    )

    assert refused(over)
    assert refused(changed)
    assert MerchantAgent.objects.get().metadata == {"tier": "gold"}


def test_the_contract_states_the_bound_wherever_metadata_is_taken(client):
    schema = client.get("/openapi.json").json()
    chinese = client.get("/openapi.json?locale=zh").json()

    def described(document, name):
        properties = document["components"]["schemas"][name]["properties"]
        return properties["metadata"]["description"]

    requests = [
        "IntentCreateRequest",
        "ProposalCreateRequest",
        "RegisterRequest",
        "PatchedMerchantPatchRequest",
    ]
    assert all("16 KB (16384 bytes)" in described(schema, name) for name in requests)
    assert all("16384 字节" in described(chinese, name) for name in requests)
