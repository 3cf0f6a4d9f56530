"""The staff console: today's figures on the front page, and the way from an intent to why a
merchant won its session."""

import re
from datetime import timedelta

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from matching.models import Intent, MatchSession
from merchants.models import MerchantAgent, WebhookDelivery, WebhookEvent
from tests.factories import ProductFactory
from tests.protocol import create_intent, post, propose, register

pytestmark = pytest.mark.django_db


@pytest.fixture
def contest(client, trail_shoe):
    """Two merchants propose the same shoe for one intent; the cheaper, in-stock one wins."""
    ProductFactory(id=1002, title="Road Runner Shoe", price_usd=70)
    fast = register(client, "fast-shop")
    slow = register(client, "slow-shop")
    intent_id = create_intent(client, intent_tags=["trail"], budget_range={"max": 100})["intent_id"]
    winner = propose(client, fast, intent_id, 1001, price=85, inventory_status="in_stock").json()[
        "proposal"
    ]["proposal_id"]
    loser = propose(
        client, slow, intent_id, 1001, price=140, inventory_status="out_of_stock"
    ).json()["proposal"]["proposal_id"]
    session = post(client, "/v1/match", {"intent_id": intent_id}).json()["match_session"]
    return intent_id, session["match_session_id"], winner, loser


def tiles(page):
    text = page.content.decode()
    return {
        label: int(value)
        for value, label in re.findall(
            r'<span style="display: block[^>]*>(\d+)</span>\s*<span[^>]*>([^<]+)</span>', text
        )
    }


def test_the_front_page_counts_todays_activity(staff, contest):
    yesterday = timezone.now() - timedelta(days=1)
    Intent.objects.create(intent_id="int_" + "0" * 24, raw_query="old", created_at=yesterday)
    Intent.objects.filter(intent_id="int_" + "0" * 24).update(created_at=yesterday)
    MerchantAgent.objects.filter(merchant_id="slow-shop").update(status="unhealthy")

    page = staff.get(reverse("admin:index"))

    assert page.status_code == 200
    assert tiles(page) == {
        "intent": 1,  # singular under a count of one
        "proposals": 2,
        "match session": 1,
        "accepted match tokens": 0,
        "deliveries failed": 0,
        "deliveries retrying": 0,
        "unhealthy merchant": 1,
        "clicks": 0,
        "conversions": 0,
        "flagged conversions": 0,
        "GMV": 0,
    }


def test_staff_see_only_the_figures_of_records_they_may_view(client, django_user_model, contest):
    user = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    client.force_login(user)
    nothing = tiles(client.get(reverse("admin:index")))
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["view_intent", "view_merchantagent"])
    )
    client.force_login(django_user_model.objects.get(pk=user.pk))  # permissions read afresh

    some = tiles(client.get(reverse("admin:index")))

    assert nothing == {}
    assert some == {"intent": 1, "unhealthy merchants": 0}


def test_each_figure_links_to_the_records_it_counts(staff, contest):
    page = staff.get(reverse("admin:index"))
    links = re.findall(r'<a class="tile" href="([^"]+)"', page.content.decode())

    assert len(links) == 11
    assert b'href="/reports/"' in page.content
    for link in links:
        listed = staff.get(link.replace("&amp;", "&"))
        assert listed.status_code == 200, link  # an invalid filter redirects to ?e=1
    intents = staff.get(links[0].replace("&amp;", "&"))
    assert b"1 intent" in intents.content


def test_failing_deliveries_count_today(staff, contest):
    merchant = MerchantAgent.objects.get(merchant_id="fast-shop")
    now = timezone.now()
    events = [
        WebhookEvent.objects.create(event_id=f"evt_{n}", event_type="intent.surge", body="{}")
        for n in range(3)
    ]
    common = {"merchant": merchant, "next_attempt_at": now}
    WebhookDelivery.objects.create(event=events[0], status="failed", completed_at=now, **common)
    WebhookDelivery.objects.create(event=events[1], status="pending", attempt_count=2, **common)
    WebhookDelivery.objects.create(event=events[2], status="pending", attempt_count=0, **common)

    counted = tiles(staff.get(reverse("admin:index")))

    assert (counted["delivery failed"], counted["delivery retrying"]) == (1, 1)


def test_staff_see_why_a_merchant_won_from_the_session(staff, contest):
    intent_id, session_id, winner, loser = contest

    intent_page = staff.get(reverse("admin:matching_intent_change", args=[quote(intent_id)]))
    session_url = reverse("admin:matching_matchsession_change", args=[quote(session_id)])
    assert session_url.encode() in intent_page.content

    page = staff.get(session_url).content.decode()
    rows = re.findall(r"<tr><td>(\d)</td><td><a href=\"[^\"]+\">(prp_\w+)</a><small>", page)
    assert rows == [("1", winner), ("2", loser)]
    assert ">fast-shop</a>" in page
    assert ">slow-shop</a>" in page
    assert 'title="weight 0.2">price_fit 1.00</span>' in page
    session = MatchSession.objects.get()
    assert session.ranked_proposals[0]["reasons"][0] in page


def test_a_proposal_page_says_where_it_placed(staff, contest):
    _, session_id, _, loser = contest

    page = staff.get(reverse("admin:matching_proposal_change", args=[quote(loser)]))

    score = MatchSession.objects.get().ranked_proposals[1]["score"]
    assert f"{session_id}</a>: rank 2 of 2, score {score:.3f}" in page.content.decode()


def test_the_front_page_shows_todays_clicks_conversions_and_gmv_per_currency(staff, contest):
    shop = register(staff, "eu-shop")
    for n, (amount, currency) in enumerate([(40, "EUR"), (2.5, "EUR"), (89.99, "USD")]):
        rec_id = staff.get("/v1/products/1001/card").json()["rec_id"]
        staff.get(f"/r/{rec_id}", HTTP_USER_AGENT=f"shopper {n}")
        conversion = {
            "merchant_agent_id": "eu-shop",
            "rec_id": rec_id,
            "order_id": f"ORD-{n}",
            "amount": amount,
            "currency": currency,
            "occurred_at": timezone.now().isoformat(),
        }
        assert post(staff, "/v1/attribution/conversions", conversion, shop.token).status_code == 201

    page = staff.get(reverse("admin:index")).content.decode()

    shown = {
        label: value
        for value, label in re.findall(
            r'<span style="display: block[^>]*>([\d.,]+)</span>\s*<span[^>]*>([^<]+)</span>', page
        )
    }
    assert (shown["clicks"], shown["conversions"]) == ("3", "3")
    assert (shown["GMV, EUR"], shown["GMV, USD"]) == ("42.50", "89.99")
    assert "GMV" not in shown  # no figure of nothing beside real ones
