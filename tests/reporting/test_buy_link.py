"""The buy link: /r/{rec_id} records the click and leads to the shop with the same rec_id."""

from urllib.parse import parse_qs, urlsplit

import pytest

from reporting.models import Click

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


def test_every_follow_is_a_click(client, trail_shoe):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    for _ in range(3):
        client.get(f"/r/{rec_id}")

    assert Click.objects.filter(recommendation_id=rec_id).count() == 3


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

    response = client.get(f"/r/{rec_id}", HTTP_USER_AGENT="bot\x00x", HTTP_REFERER="a\x00b")

    assert response.status_code == 302
    click = Click.objects.get()
    assert (click.user_agent, click.referrer) == ("bot\ufffdx", "a\ufffdb")


def test_unknown_rec_id_is_404_and_records_nothing(client):
    response = client.get("/r/rec_000000000000000000000000")

    assert response.status_code == 404
    assert response.json()["error"] == "not found"
    assert not Click.objects.exists()


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
