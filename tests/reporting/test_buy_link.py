"""The buy link: /r/{rec_id} records the click and leads to the shop with the same rec_id."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from reporting.models import Click
from tests.reporting.conftest import report
from tests.support.accept import BROWSER

pytestmark = pytest.mark.django_db


def test_buy_link_redirects_to_the_shop_with_the_rec_id_and_records_the_click(client, trail_shoe):
    card = client.get("/v1/products/1001/card?channel=agent.test").json()
    path = urlsplit(card["cta"]["primary"]["url"]).path

    response = client.get(
        path, HTTP_USER_AGENT="ShopperAgent/1.0", HTTP_REFERER="https://chat.test/"
    )

    assert response.status_code == 302
    target = urlsplit(response["Location"])
    assert (target.scheme, target.netloc, target.path) == ("https", "shop.test", "/p/1001")
    assert parse_qs(target.query) == {"ref": ["feed"], "rec_id": [card["rec_id"]]}
    click = Click.objects.get()
    assert click.recommendation_id == card["rec_id"]
    assert click.user_agent == "ShopperAgent/1.0"
    assert click.referrer == "https://chat.test/"


def test_a_client_following_a_card_again_and_again_is_one_click(client, trail_shoe, unthrottled):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    answers = [client.get(f"/r/{rec_id}", HTTP_USER_AGENT="Shopper/1") for _ in range(300)]
    elsewhere = client.get(f"/r/{rec_id}", HTTP_USER_AGENT="Shopper/1", REMOTE_ADDR="10.9.8.7")

    assert {answer.status_code for answer in [*answers, elsewhere]} == {302}
    assert Click.objects.filter(recommendation_id=rec_id).count() == 2
    assert len(set(Click.objects.values_list("client_key", flat=True))) == 2
    assert "10.9.8.7" not in str(list(Click.objects.values()))  # a keyed hash, not the address


def test_forty_user_agents_from_one_address_are_one_click(
    client, trail_shoe, unthrottled, supply_keys
):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    here = [
        client.get(f"/r/{rec_id}", HTTP_USER_AGENT=f"Mozilla/5.0 Shopper/{n}", REMOTE_ADDR=ip)
        for n, ip in enumerate(["198.51.100.7"] * 40)
    ]
    there = client.get(f"/r/{rec_id}", HTTP_USER_AGENT="Shopper/41", REMOTE_ADDR="198.51.100.8")

    assert {answer.status_code for answer in [*here, there]} == {302}
    assert Click.objects.filter(recommendation_id=rec_id).count() == 2
    totals = report(client).json()["totals"]
    assert (totals["clicks"], totals["unique_clicks"]) == (2, 2)


def test_an_ipv6_client_is_its_64_network(client, trail_shoe, unthrottled):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]
    one_network = ["2001:db8:1:2::1", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::ffff"]
    next_network = "2001:db8:1:3::1"

    answers = [
        client.get(f"/r/{rec_id}", HTTP_USER_AGENT=f"Shopper/{n}", REMOTE_ADDR=address)
        for n, address in enumerate([*one_network, next_network])
    ]

    assert {answer.status_code for answer in answers} == {302}
    assert Click.objects.filter(recommendation_id=rec_id).count() == 2
    assert "2001:db8" not in str(list(Click.objects.values()))


def test_after_the_window_the_same_client_clicks_again_but_is_unique_once_a_day(
    client, trail_shoe, settings, supply_keys
):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]
    client.get(f"/r/{rec_id}")
    now = timezone.now()
    earlier = now - timedelta(seconds=settings.CLICK_WINDOW_S + 1)
    Click.objects.update(clicked_at=earlier)

    client.get(f"/r/{rec_id}")
    totals = report(client).json()["totals"]

    assert Click.objects.count() == 2
    same_day = earlier.date() == now.date()
    assert (totals["clicks"], totals["unique_clicks"]) == (2, 1 if same_day else 2)


@pytest.mark.parametrize(
    "user_agent",
    [
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "WhatsApp/2.23.20.0",
        "Twitterbot/1.0",
        "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120",
    ],
)
def test_crawlers_and_link_previewers_are_redirected_but_never_counted(
    client, trail_shoe, user_agent
):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    response = client.get(f"/r/{rec_id}", HTTP_USER_AGENT=user_agent)

    assert response.status_code == 302
    assert not Click.objects.exists()


def test_buy_links_are_throttled_per_client(client, trail_shoe, settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["buy_link"]
    allowed = int(rate.split("/")[0])
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    answers = [client.get(f"/r/{rec_id}").status_code for _ in range(allowed + 1)]

    assert answers[:allowed] == [302] * allowed
    assert answers[-1] == 429
    assert Click.objects.count() == 1


def test_a_throttled_shopper_reads_how_long_to_wait(client, trail_shoe, settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["buy_link"]
    allowed = int(rate.split("/")[0])
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]
    for _ in range(allowed):
        client.get(f"/r/{rec_id}")

    response = client.get(f"/r/{rec_id}", HTTP_ACCEPT=BROWSER)

    page = response.content.decode()
    assert response.status_code == 429
    assert "Too many visits from your network" in page
    assert f"Wait {response['Retry-After']} seconds and try again." in page
    assert f'<a href="/r/{rec_id}">Try again</a>' in page


def test_a_rec_id_already_in_the_shop_url_is_replaced(client, trail_shoe):
    trail_shoe.url = "https://shop.test/p/1001?rec_id=forged&size=42"
    trail_shoe.save()
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    query = parse_qs(urlsplit(client.get(f"/r/{rec_id}")["Location"]).query)

    assert query == {"size": ["42"], "rec_id": [rec_id]}


def test_oversized_headers_are_truncated_not_refused(client, trail_shoe):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    response = client.get(f"/r/{rec_id}", HTTP_USER_AGENT="A" * 5000)

    assert response.status_code == 302
    assert len(Click.objects.get().user_agent) == 300


def test_a_nul_in_the_headers_is_recorded_replaced(client, trail_shoe):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    response = client.get(f"/r/{rec_id}", HTTP_USER_AGENT="agent\x00x", HTTP_REFERER="a\x00b")

    assert response.status_code == 302
    click = Click.objects.get()
    assert (click.user_agent, click.referrer) == ("agent\ufffdx", "a\ufffdb")


def test_unknown_rec_id_is_404_and_records_nothing(client):
    response = client.get("/r/rec_000000000000000000000000")

    assert response.status_code == 404
    assert response.json()["error"] == "not found"
    assert not Click.objects.exists()


@pytest.mark.parametrize("accept", [BROWSER, "text/html"])
def test_a_dead_link_tells_a_shopper_the_offer_is_gone_and_links_the_shop(client, settings, accept):
    settings.SHOP_HOME_URL = "https://shop.test/"

    response = client.get("/r/rec_000000000000000000000000", HTTP_ACCEPT=accept)

    page = response.content.decode()
    assert response.status_code == 404
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "This offer is no longer available" in page
    assert '<a href="https://shop.test/">Visit the shop</a>' in page
    assert "API reference" not in page  # the gateway's own pages are for developers
    assert "Accept" in response["Vary"]
    assert not Click.objects.exists()


def test_a_dead_link_without_a_known_shop_sends_the_shopper_back_to_the_assistant(client, settings):
    settings.SHOP_HOME_URL = ""

    page = client.get("/r/rec_000000000000000000000000", HTTP_ACCEPT=BROWSER).content.decode()

    assert "This offer is no longer available" in page
    assert "Ask the assistant that gave you the link for a fresh one." in page
    assert "Visit the shop" not in page


@pytest.mark.parametrize("accept", [None, "application/json", "*/*"])
def test_programs_meet_a_dead_link_as_the_envelope(client, settings, accept):
    settings.SHOP_HOME_URL = "https://shop.test/"
    headers = {"HTTP_ACCEPT": accept} if accept else {}

    response = client.get("/r/rec_000000000000000000000000", **headers)

    assert response.status_code == 404
    assert response.json() == {
        "error": "not found",
        "message": "No card was issued under that rec_id.",
    }


def test_a_browser_accepting_only_html_is_still_redirected(client, trail_shoe):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    response = client.get(f"/r/{rec_id}", HTTP_ACCEPT="text/html,application/xhtml+xml")

    assert response.status_code == 302
    assert Click.objects.count() == 1


def test_head_redirects_without_counting_a_click(client, trail_shoe):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    response = client.head(f"/r/{rec_id}")

    assert response.status_code == 302
    assert response["Location"].endswith(f"rec_id={rec_id}")
    assert not Click.objects.exists()


def test_the_merchants_query_string_reaches_the_shop_byte_for_byte(client, trail_shoe):
    trail_shoe.url = "https://shop.test/p/1001?flag&x=a%20b&sig=A%2bB&rec%5Fid=old"
    trail_shoe.save()
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    location = client.get(f"/r/{rec_id}")["Location"]

    assert location == f"https://shop.test/p/1001?flag&x=a%20b&sig=A%2bB&rec_id={rec_id}"


@pytest.mark.parametrize("rec_id", ["a%00b", "rec_%00", "x" * 3000])
def test_malformed_rec_id_is_404_on_every_database(client, rec_id):
    response = client.get(f"/r/{rec_id}")

    assert response.status_code == 404
    assert response.json()["error"] == "not found"
