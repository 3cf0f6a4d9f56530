"""Every admin page staff can open renders, and immutable records stay read-only."""

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils import timezone

from catalog.models import Product, Recommendation
from matching.models import Intent, IntentMandate, MatchSession, Proposal
from merchants.endpoints import NOT_PUBLIC
from merchants.models import MerchantAgent
from reporting.models import Click, Conversion
from tests.protocol import Merchant, create_intent, post, propose, register
from tests.reporting.conftest import accepted_token

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model, trail_shoe, signing_key):
    user = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw-not-used")
    client.force_login(user)
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]
    client.get(f"/r/{rec_id}")
    # One of everything the protocol records: merchant, intent, proposal, session, token.
    shop = register(client, "shop-1")
    intent_id = create_intent(client, intent_tags=["trail"])["intent_id"]
    proposal_id = propose(client, shop, intent_id, 1001).json()["proposal"]["proposal_id"]
    session = post(client, "/v1/match", {"intent_id": intent_id}).json()["match_session"]
    post(client, f"/v1/match/{session['match_session_id']}/accept", {"proposal_id": proposal_id})
    post(client, "/v1/intent-mandates/sign", {"product_id": "1001", "amount_limit": 120})
    conversion = {
        "merchant_agent_id": "shop-1",
        "rec_id": rec_id,
        "order_id": "ORD-1",
        "amount": 89.99,
        "currency": "USD",
        "occurred_at": timezone.now().isoformat(),
    }
    assert post(client, "/v1/attribution/conversions", conversion, shop.token).status_code == 201
    client.secret_token = shop.token
    return client


def test_every_changelist_and_change_page_renders(staff_client):
    for model in admin.site._registry:
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        assert staff_client.get(changelist).status_code == 200, changelist
        assert staff_client.get(changelist, {"q": "trail"}).status_code == 200, changelist
        obj = model._default_manager.first()
        if obj is not None:
            change = reverse(
                f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)]
            )
            assert staff_client.get(change).status_code == 200, change


def test_the_card_is_shown_as_a_table_of_its_fields_not_json(staff_client):
    rec = Recommendation.objects.get(intent_id__isnull=True)
    page = staff_client.get(reverse("admin:catalog_recommendation_change", args=[quote(rec.pk)]))

    text = page.content.decode()
    assert f'<th scope="row">rec_id</th><td>{rec.pk}</td>' in text
    assert "&quot;rec_id&quot;" not in text
    assert "<pre" not in text


def test_a_product_shows_its_search_document_and_the_vocabulary_is_read_only(staff_client):
    page = staff_client.get(reverse("admin:catalog_product_change", args=[1001]))
    words = staff_client.get(reverse("admin:catalog_searchword_changelist"), {"q": "trail"})

    assert b"Search document" in page.content
    assert b'<th scope="row">title</th><td>trailfox gtx trail run shoe</td>' in page.content
    assert b"trailfox" in words.content
    assert staff_client.get(reverse("admin:catalog_searchword_add")).status_code == 403
    assert b"256 bytes, written with the text above" in page.content


def test_a_product_without_an_embedding_says_how_to_write_it(staff_client):
    Product.objects.filter(pk=1001).update(embedding=None)
    page = staff_client.get(reverse("admin:catalog_product_change", args=[1001]))

    assert b"embed_catalog" in page.content


@pytest.mark.parametrize("model_name", ["recommendation", "click"])
def test_immutable_records_cannot_be_added_or_deleted(staff_client, model_name):
    app = "reporting" if model_name == "click" else "catalog"

    assert staff_client.get(reverse(f"admin:{app}_{model_name}_add")).status_code == 403
    click = Click.objects.get()
    pk = click.pk if model_name == "click" else click.recommendation_id
    assert (
        staff_client.post(reverse(f"admin:{app}_{model_name}_delete", args=[quote(pk)])).status_code
        == 403
    )


def test_intent_mandates_are_read_only_with_the_signed_payload_shown_as_a_table(staff_client):
    mandate = IntentMandate.objects.get()
    change = reverse("admin:matching_intentmandate_change", args=[quote(mandate.pk)])

    page = staff_client.get(change)
    added = staff_client.get(reverse("admin:matching_intentmandate_add"))
    deleted = staff_client.post(
        reverse("admin:matching_intentmandate_delete", args=[quote(mandate.pk)])
    )

    assert page.status_code == 200
    assert f'<th scope="row">mandate_id</th><td>{mandate.pk}</td>'.encode() in page.content
    assert b'name="amount_limit"' not in page.content
    assert added.status_code == 403
    assert deleted.status_code == 403
    assert IntentMandate.objects.filter(pk=mandate.pk).exists()


def test_merchant_page_never_shows_its_secrets(staff_client):
    merchant = MerchantAgent.objects.get()

    page = staff_client.get(reverse("admin:merchants_merchantagent_change", args=[merchant.pk]))

    assert page.status_code == 200
    assert merchant.token_hash.encode() not in page.content
    assert merchant.webhook_secret.encode() not in page.content
    assert staff_client.secret_token.encode() not in page.content


def test_deactivate_action_withdraws_proposals(staff_client):
    merchant = MerchantAgent.objects.get()

    staff_client.post(
        reverse("admin:merchants_merchantagent_changelist"),
        {"action": "deactivate", "_selected_action": [merchant.pk]},
    )

    assert MerchantAgent.objects.get().status == "deactivated"
    assert list(Proposal.objects.values_list("status", flat=True)) == ["withdrawn"]


def test_expire_action_expires_open_sessions(staff_client):
    session = MatchSession.objects.get()

    staff_client.post(
        reverse("admin:matching_matchsession_changelist"),
        {"action": "expire", "_selected_action": [session.pk]},
    )

    assert MatchSession.objects.get().status == "expired"


def test_staff_cannot_add_a_merchant_or_give_it_a_private_endpoint(staff_client):
    merchant = MerchantAgent.objects.get()
    change = reverse("admin:merchants_merchantagent_change", args=[merchant.pk])

    added = staff_client.get(reverse("admin:merchants_merchantagent_add"))
    saved = staff_client.post(
        change,
        {
            "agent_endpoint": "https://10.0.0.5/hook",
            "protocol_version": "0.2",
            "subscription_tags": "",
            "capabilities": "",
            "regions": "",
            "category_tags": "",
            "inventory_scope": "",
        },
    )

    assert added.status_code == 403
    assert saved.status_code == 200
    assert NOT_PUBLIC.encode() in saved.content
    assert MerchantAgent.objects.get().agent_endpoint != "https://10.0.0.5/hook"


def test_conversions_are_read_only_and_link_to_their_card_and_token(staff_client):
    shop = Merchant("shop-1", staff_client.secret_token, "")
    accepted = accepted_token(staff_client, shop, 1001, "agent.a")
    body = {
        "merchant_agent_id": "shop-1",
        "rec_id": Conversion.objects.values_list("recommendation_id", flat=True).get(),
        "match_token_id": accepted,
        "order_id": "ORD-2",
        "amount": 10,
        "currency": "USD",
        "occurred_at": timezone.now().isoformat(),
    }
    assert post(staff_client, "/v1/attribution/conversions", body, shop.token).status_code == 201
    conversion = Conversion.objects.get(order_id="ORD-2")
    change = reverse("admin:reporting_conversion_change", args=[quote(conversion.pk)])

    page = staff_client.get(change)
    listed = staff_client.get(reverse("admin:reporting_conversion_changelist"), {"q": "ORD-2"})

    assert page.status_code == 200
    rec_id, token_id = conversion.recommendation_id, conversion.match_token_id
    assert rec_id is not None
    assert token_id is not None
    rec_url = reverse("admin:catalog_recommendation_change", args=[quote(rec_id)])
    token_url = reverse("admin:matching_matchtoken_change", args=[quote(token_id)])
    assert f'href="{rec_url}"'.encode() in page.content
    assert f'href="{token_url}"'.encode() in page.content
    assert b"ORD-2" in listed.content
    assert staff_client.get(reverse("admin:reporting_conversion_add")).status_code == 403
    delete = reverse("admin:reporting_conversion_delete", args=[quote(conversion.pk)])
    assert staff_client.post(delete).status_code == 403
    assert Conversion.objects.count() == 2


def test_intents_the_engine_gave_up_on_are_listed_apart_and_can_be_tried_again(
    client, django_user_model, settings
):
    staff = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw-not-used")
    client.force_login(staff)
    settings.INTENT_ENGINE_MODEL = ""  # stored unresolved
    waiting = create_intent(client, raw_query="waits for the engine")["intent_id"]
    given_up = create_intent(client, raw_query="the engine cannot read this")["intent_id"]
    resolved = create_intent(client, raw_query="tagged", intent_tags=["trail"])["intent_id"]
    Intent.objects.filter(intent_id=given_up).update(
        resolution_attempts=6, next_resolution_at=None, resolution_error="Not a resolution."
    )
    changelist = reverse("admin:matching_intent_changelist")

    listed = {
        state: client.get(changelist, {"resolution": state}).content.decode()
        for state in ("resolved", "waiting", "given_up")
    }

    shown = {
        state: {resolved, waiting, given_up} & set(_ids(page)) for state, page in listed.items()
    }
    assert shown == {"resolved": {resolved}, "waiting": {waiting}, "given_up": {given_up}}
    response = client.post(
        changelist, {"action": "resolve_now", "_selected_action": [given_up, resolved]}
    )
    assert response.status_code == 302
    assert Intent.objects.get(intent_id=given_up).next_resolution_at is not None  # due again
    assert Intent.objects.get(intent_id=resolved).next_resolution_at is None  # untouched


def _ids(page: str) -> list[str]:
    import re

    return re.findall(r"int_[0-9a-f]{24}", page)
