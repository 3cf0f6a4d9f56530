"""What the shopper rules out is never served (matching/recommend/exclusions.py): read from the
engine's `constraints` and its `exclude` list, honoured in every tier, in the trending fill and
on UCP's later pages, and said in the answer's `retrieval`."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.models import Product
from catalog.query import SearchQuery, fits
from tests.factories import ProductFactory, VideoFactory

pytestmark = pytest.mark.django_db

BOXES = [
    (3001, "Steel Lunch Box Insulated Tiffin", []),
    (3002, "Plastic Lunch Box 3 Compartments", []),
    (3003, "Glass Lunch Box with Bag", []),
    (3004, "Kids Lunch Box Leak Proof", ["plastic"]),  # plastic in its tags only
    (3005, "Lunch Box Bag Insulated", []),
    (3006, "Bento Lunch Box, BPA-free PLASTIC", []),
]
# Best sellers with creators, in the kitchen: the trending fill after the tiers.
TRENDING = [(3010, "Plastic Water Jug", 900), (3011, "Steel Water Jug", 800)]


@pytest.fixture
def boxes(db):
    for pid, title, tags in BOXES:
        ProductFactory(
            id=pid, title=title, tags=tags, brand=None, category_l1="Home & Kitchen",
            category_l2="Kitchen Storage", price_usd=Decimal("10.00"), regions=[],
        )  # fmt: skip
    for pid, title, gmv in TRENDING:
        product = ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Home & Kitchen",
            category_l2="Jugs", price_usd=Decimal("5.00"), regions=[],
        )  # fmt: skip
        VideoFactory(product=product, gmv_usd=gmv, published_at=timezone.now() - timedelta(days=1))


def _resolution(**fields):
    return {
        "normalized_query": "lunch box",
        "keywords": ["lunch box"],
        "categories": ["Kitchen Storage"],
        "intent_tags": ["lunch"],
        "target_audience": None,
        "budget": {"min": None, "max": None, "currency": None},
        "region": None,
        "constraints": [],
        "summary": "A lunch box",
        **fields,
    }


def served_for(client, engine, words, limit=10, **fields):
    engine.answer(words, **_resolution(**fields))
    response = client.get("/v1/recommend", {"intent": words, "limit": limit})
    assert response.status_code == 200, response.content
    body = response.json()
    return [int(item["product"]["id"]) for item in body["items"]], body


def titles_of(ids):
    return [Product.objects.get(pk=pid).title for pid in ids]


def test_an_exclusion_in_the_constraints_is_never_served_in_any_tier_or_the_fill(
    client, boxes, engine
):
    ids, body = served_for(
        client, engine, "a lunch box, not plastic", constraints=["exclude plastic lunch boxes"]
    )

    assert set(ids) >= {3001, 3003, 3005}
    assert not {3002, 3004, 3006, 3010} & set(ids), titles_of(ids)
    assert 3011 in ids  # the fill still fills, with what was not ruled out
    assert body["retrieval"]["excluded"] == ["plastic"]
    assert "plastic" not in " ".join(titles_of(ids)).lower()


def test_the_engines_exclude_list_is_honoured_alone(client, boxes, engine):
    ids, body = served_for(
        client, engine, "lunch box without glass or a bag", exclude=["glass", "bag"]
    )

    assert set(ids) >= {3001, 3002, 3004, 3006}
    assert not {3003, 3005} & set(ids)
    assert body["retrieval"]["excluded"] == ["glass", "bag"]


def test_a_labelled_exclusion_in_the_constraints_is_one(client, boxes, engine):
    """ "material: not plastic": the label is read past."""
    ids, body = served_for(
        client, engine, "a lunch box, not plastic", constraints=["material: not plastic"]
    )

    assert not {3002, 3004, 3006, 3010} & set(ids), titles_of(ids)
    assert body["retrieval"]["excluded"] == ["plastic"]


def test_a_constraint_that_is_no_exclusion_rules_nothing_out(client, boxes, engine):
    ids, body = served_for(
        client, engine, "leak proof lunch box", constraints=["leak proof", "non-stick", "BPA free"]
    )

    assert {pid for pid, _, _ in BOXES} <= set(ids)
    assert body["retrieval"]["excluded"] == []


def test_what_names_the_product_asked_for_is_never_ruled_out(client, boxes, engine):
    ids, body = served_for(client, engine, "lunch box", constraints=["no lunch boxes"])

    assert {pid for pid, _, _ in BOXES} <= set(ids)
    assert body["retrieval"]["excluded"] == []


def test_a_phrase_is_ruled_out_as_a_phrase(client, boxes, engine):
    ids, body = served_for(client, engine, "lunch box", exclude=["lunch box bag"])

    assert not {3003, 3005} & set(ids)  # "Lunch Box with Bag", "Lunch Box Bag"
    assert {3001, 3002, 3004, 3006} <= set(ids)
    assert body["retrieval"]["excluded"] == ["lunch box bag"]


@pytest.mark.parametrize(
    ("fields", "out", "said"),
    [
        # Alternatives in a constraint: each is ruled out on its own.
        ({"constraints": ["not plastic or glass"]}, {3002, 3003, 3004, 3006}, ["plastic", "glass"]),
        ({"constraints": ["no plastic / glass"]}, {3002, 3003, 3004, 3006}, ["plastic", "glass"]),
        ({"constraints": ["neither glass nor steel"]}, {3001, 3003}, ["glass", "steel"]),
        # Several, with the thing they all describe after the last one: each word is out.
        (
            {"exclude": ["steel, glass or bento lunch boxes"]},
            {3001, 3003, 3006},
            ["steel", "glass", "bento"],
        ),
        # After what the shopper wants, in the same constraint.
        ({"constraints": ["insulated, but not steel"]}, {3001}, ["steel"]),
        # In other words of ruling out, first or after what is wanted.
        (
            {"constraints": ["material other than plastic / glass"]},
            {3002, 3003, 3004, 3006},
            ["plastic", "glass"],
        ),
        ({"constraints": ["don't want a glass one"]}, {3003}, ["glass"]),
        ({"constraints": ["should not be steel"]}, {3001}, ["steel"]),
        ({"constraints": ["bento rather than plastic"]}, {3002, 3004, 3006}, ["plastic"]),
    ],
)
def test_an_exclusion_of_alternatives_rules_out_each_of_them(
    client, boxes, engine, fields, out, said
):
    ids, body = served_for(client, engine, f"lunch box {said}", **fields)

    assert not out & set(ids), titles_of(ids)
    assert {pid for pid, _, _ in BOXES} - out <= set(ids)
    assert body["retrieval"]["excluded"] == said


def shelved(category, titles):
    for pid, title in titles:
        ProductFactory(id=pid, title=title, tags=[], brand=None, category_l2=category, regions=[])


def asked(client, engine, words, limit=10, **fields):
    engine.answer(words, **_resolution(**fields))
    return client.get("/v1/recommend", {"intent": words, "limit": limit}).json()


def test_a_word_of_two_parts_is_ruled_out_however_it_is_written(client, engine):
    shelved(
        "Sunglasses",
        [(3101, "Cateye Sunglasses"), (3102, "Cat-Eye Sunglasses"), (3103, "Aviator Sunglasses")],
    )

    body = asked(
        client,
        engine,
        "sunglasses",
        limit=3,
        normalized_query="sunglasses",
        keywords=["sunglasses"],
        categories=["Sunglasses"],
        exclude=["cat-eye or butterfly frames"],
    )

    assert [item["product"]["id"] for item in body["items"]] == ["3103"]
    assert body["retrieval"]["excluded"] == ["cat eye", "cateye", "butterfly"]


def test_what_a_title_calls_made_of_or_from_the_excluded_thing_is_ruled_out(client, engine):
    shelved(
        "Cricket Bats",
        [
            (3201, "Kashmiri Willow Cricket Bat"),
            (3202, "Poplar Willow Cricket Bat"),
            (3203, "Wooden Cricket Bat, Tennis Ball"),
            (3204, "Plastic Cricket Bat"),
        ],
    )

    def served(*excluded, keywords=("cricket bat",)):
        body = asked(
            client,
            engine,
            f"cricket bat {' '.join(excluded)} {' '.join(keywords)}",
            normalized_query="cricket bat",
            keywords=list(keywords),
            categories=["Cricket Bats"],
            exclude=list(excluded),
        )
        return {item["product"]["id"] for item in body["items"]}

    assert served("kashmir willow") == {"3202", "3203", "3204"}
    assert served("wood") == {"3201", "3202", "3204"}
    # Never what the shopper asked for: a wooden bat, not a wood one.
    assert "3203" in served("wood", keywords=("wooden cricket bat",))


def test_a_department_ruled_out_by_its_whole_name_is_never_served(client, engine):
    """ "not sports shoes": the Sports Shoes department's titles say "Running Shoe", never
    "sports shoes"; a ruled-out word alone names no department (a "Shoes" one holds slippers)."""
    shelved("Sports Shoes", [(3301, "Men's Running Shoe"), (3302, "Men's Cricket Shoes")])
    shelved("Formal Shoes", [(3303, "Men's Formal Shoes"), (3304, "Men's Oxford Shoes")])
    shelved("Shoes", [(3305, "Men's Slippers")])

    body = asked(
        client, engine, "shoes for men but not sports shoes", normalized_query="men's shoes",
        keywords=["shoes", "men"], categories=["Men's Shoes"], exclude=["sports shoes"],
    )  # fmt: skip

    served = [item["product"]["id"] for item in body["items"]]
    assert set(served[:2]) == {"3303", "3304"}, served
    assert not {"3301", "3302"} & set(served), served
    body = asked(
        client, engine, "slippers for men, no shoes", normalized_query="men's slippers",
        keywords=["slippers", "men"], categories=["Shoes"], exclude=["shoes"],
    )  # fmt: skip

    assert [item["product"]["id"] for item in body["items"]][:1] == ["3305"]


def test_an_exclusion_holds_on_every_page_of_a_ucp_search(client, boxes, engine):
    engine.answer("lunch box", **_resolution(exclude=["plastic"]))
    body = {"query": "lunch box", "pagination": {"limit": 1}}
    page = client.post("/ucp/catalog/search", body, content_type="application/json").json()
    seen = [int(product["id"]) for product in page["products"]]
    while cursor := page["pagination"].get("cursor"):
        following = {**body, "pagination": {"limit": 1, "cursor": cursor}}
        answer = client.post("/ucp/catalog/search", following, content_type="application/json")
        assert answer.status_code == 200, answer.content
        page = answer.json()
        seen += [int(product["id"]) for product in page["products"]]

    assert {3001, 3003, 3005, 3011} <= set(seen)
    assert not {3002, 3004, 3006, 3010} & set(seen)


def test_an_exclude_list_that_is_not_one_is_an_unreadable_answer(client, boxes, engine):
    engine.answer("lunch box", **_resolution(exclude="plastic"))

    response = client.get("/v1/recommend", {"intent": "lunch box"})

    assert response.status_code == 503
    assert response.json()["error"] == "intent_engine_unavailable"


def test_a_things_name_that_begins_with_no_rules_nothing_out(client, engine):
    """ "No show socks" names a kind of socks (catalog/synonyms.py), not an exclusion of "show
    socks", which would rule out the very socks asked for."""
    shelved(
        "Socks",
        [(3501, "Men's No Show Socks, Pack of 3"), (3502, "Men's Calf Length Cotton Socks")],
    )

    body = asked(
        client,
        engine,
        "no show socks for men",
        normalized_query="men's no show socks",
        keywords=["socks", "men"],
        categories=["Socks"],
        constraints=["no show socks"],
    )

    assert "3501" in {item["product"]["id"] for item in body["items"]}
    assert body["retrieval"]["excluded"] == []


def test_a_title_that_names_the_excluded_word_as_what_it_is_without_is_served(client, engine):
    """ "Nothing padded" rules out "Lightly Padded", not "Non Padded" nor "Padding Free": a title
    that says the product is without the word does not hold it, in every tier and in the
    answer's last check; and "non-padded bra" among the keywords asks for no padding, so it
    does not keep "padded" from being ruled out."""
    shelved(
        "Bras",
        [
            (3601, "Women's Cotton Non Padded Wire Free Bra"),
            (3602, "Women's Lightly Padded Wirefree T-Shirt Bra"),
            (3603, "Women's Non-Padded Non-Wired Everyday Bra"),
            (3604, "Women's Padded Push Up Bra, Non Wired"),
        ],
    )

    body = asked(
        client,
        engine,
        "everyday bra for women, nothing padded or underwired",
        normalized_query="non-padded bra for women",
        keywords=["bra", "non-padded bra", "women"],
        categories=["Bras"],
        constraints=["not padded", "no underwire"],
    )

    assert sorted(item["product"]["id"] for item in body["items"]) == ["3601", "3603"]
    assert body["retrieval"]["excluded"] == ["padded", "underwire"]


def test_a_colour_before_free_size_is_still_the_colour_ruled_out(client, engine):
    """ "Free Size" names a size: a blue cap of free size is blue, in every tier and check."""
    shelved("Caps", [(3701, "Blue Cotton Cap, Free Size"), (3702, "Black Cotton Cap, Free Size")])

    body = asked(
        client,
        engine,
        "a cotton cap, not blue",
        normalized_query="cotton cap",
        keywords=["cotton cap"],
        categories=["Caps"],
        constraints=["not blue"],
    )

    assert [item["product"]["id"] for item in body["items"]] == ["3702"]


def test_a_loaded_product_that_names_the_excluded_word_only_as_without_it_fits():
    query = SearchQuery(text="bra", keywords=["bra"], categories=[], excluded=(("pad",),))

    assert fits(query, Product(title="Non Padded Bra", category_l2="Bras"))
    assert fits(query, Product(title="Bra, Padding Free", category_l2="Bras"))
    assert not fits(query, Product(title="Lightly Padded Bra", category_l2="Bras"))
    assert not fits(query, Product(title="Non Wired Padded Bra", category_l2="Bras"))


def test_a_loaded_product_of_a_ruled_out_department_is_checked_out_too():
    """The answer checks loaded products once more (catalog/query.py `fits`), departments too."""
    query = SearchQuery(
        text="shoes", keywords=["shoes"], categories=[], ruled_out_categories=("sports shoes",)
    )

    assert not fits(query, Product(title="Men's Running Shoe", category_l2="Sports Shoes"))
    assert fits(query, Product(title="Men's Formal Shoe", category_l2="Formal Shoes"))
