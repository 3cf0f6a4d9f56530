"""The semantic signal of search (catalog/semantic.py, catalog/meaning.py): the wheel's own model,
each product's embedding kept beside it, the semantic tier between the partial tier and the
category's other products, and the setting that turns it off. Every figure here comes from the
real model, loaded from its wheel."""

import json
import os
import subprocess
import sys
import textwrap
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from catalog import importer, semantic, synonyms
from catalog.models import Product
from catalog.search import SearchQuery, retrieve, tier_ids
from tests.catalog.test_import import product_line
from tests.factories import ProductFactory, VideoFactory

pytestmark = pytest.mark.django_db

APPLIANCES = [
    (5001, "Whirlpool Double Door Refrigerator 265 L", "Kitchen Appliances", 0),
    (5002, "Prestige Gas Stove 3 Burner", "Kitchen Appliances", 500),
    (5003, "Electric Kettle 1.5 L", "Kitchen Appliances", 900),
    (5004, "Canvas Sneakers", "Footwear", 0),
    (5005, "Cotton Socks Pack of 3", "Clothing", 0),
]


@pytest.fixture
def appliances(db):
    for pid, title, category, sales in APPLIANCES:
        product = ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Home", category_l2=category,
            price_usd=Decimal("30.00"), regions=[],
        )  # fmt: skip
        if sales:
            VideoFactory(product=product, gmv_usd=Decimal(sales))


def vector(words):
    found = semantic.query_vector(words)
    assert found is not None
    return found


def blob(value):
    assert value is not None
    return bytes(value)


def plan(keywords, categories=()):
    return SearchQuery(text="", keywords=list(keywords), categories=list(categories))


def test_the_model_loads_from_its_wheel_with_no_network(tmp_path):
    """In a fresh interpreter with an empty home (no cache of any download) and every socket
    refused by an audit hook, the model loads and embeds."""
    script = textwrap.dedent(
        """
        import sys

        def guard(event, args):
            if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname"):
                raise OSError(f"network use refused: {event} {args!r}")

        sys.addaudithook(guard)
        import socket
        try:
            socket.getaddrinfo("127.0.0.1", 443)
        except OSError as refused:
            assert "network use refused" in str(refused)
        else:
            raise SystemExit("the guard let a name lookup through")
        import django
        django.setup()
        from catalog import semantic
        fridge = semantic.query_vector("fridge")
        kept = semantic.embeddings(["Double Door Refrigerator", "Gas Stove 3 Burner"])
        alike = semantic.similarities(fridge, kept)
        print(len(kept[0]), alike[0] > alike[1])
        """
    )
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HF_HOME": str(tmp_path / "hf"),
        "DJANGO_SETTINGS_MODULE": "gateway.settings",
    }
    env.pop("HF_HUB_OFFLINE", None)
    done = subprocess.run(  # noqa: S603
        [sys.executable, "-c", script],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(semantic.VECTOR_BYTES), "True"]
    assert not any(tmp_path.rglob("*.safetensors"))  # nothing was fetched into the empty home


def test_each_product_keeps_its_embedding_and_a_new_text_rewrites_it(appliances):
    fridge = Product.objects.get(id=5001)
    assert isinstance(fridge.embedding, bytes | memoryview)
    assert len(blob(fridge.embedding)) == semantic.VECTOR_BYTES
    before = blob(fridge.embedding)

    fridge.title = "Bajaj Room Heater 2000 W"
    fridge.save(update_fields=["title"])
    after = blob(Product.objects.get(id=5001).embedding)

    assert after != before
    heater = vector("room heater")
    assert semantic.similarities(heater, [after])[0] > semantic.similarities(heater, [before])[0]


def test_import_writes_each_products_embedding(db, monkeypatch):
    monkeypatch.setattr(importer, "BATCH_SIZE", 2)  # three batches, each embedded on a thread
    rows = [
        product_line(pid, title=title, category_l2=category)
        for pid, title, category, _ in APPLIANCES
    ]
    summary = importer.catalog_import(lines=[json.dumps(row).encode() for row in rows])

    assert summary.created == len(APPLIANCES)
    assert not summary.rejected
    kept = dict(Product.objects.values_list("id", "embedding"))
    stored = [blob(kept[row["id"]]) for row in rows]
    assert all(len(vector_bytes) == semantic.VECTOR_BYTES for vector_bytes in stored)
    # Written for the product it belongs to, whichever batch and thread embedded it: each
    # stored vector is its own text's, nearer to it than any other product's.
    for at, row in enumerate(rows):
        alike = semantic.similarities(vector(semantic.product_text(row)), stored)
        assert max(range(len(alike)), key=alike.__getitem__) == at
        assert alike[at] > 0.99


@pytest.fixture
def no_synonym_list(monkeypatch):
    """The synonym list (catalog/synonyms.py) knows "fridge" is a "refrigerator"; these tests
    are of what the model knows alone."""
    monkeypatch.setattr(synonyms, "variants", lambda keywords: [])


def test_a_word_the_titles_do_not_use_finds_the_product_that_means_it(appliances, no_synonym_list):
    """No title says "fridge": the word tiers and the partial tier find nothing, the semantic
    tier finds the refrigerator, and the category's other products follow as broadened."""
    asked = plan(["fridge"], ["Kitchen Appliances"])
    for tier in ("raw_substring", "strict", "narrow", "fuzzy", "partial"):
        assert tier_ids(tier, asked, 10) == [], tier

    assert tier_ids("semantic", asked, 10) == [5001]
    retrieval = retrieve(asked, 3)
    assert [(hit.product_id, hit.tier) for hit in retrieval.hits] == [
        (5001, "semantic"),
        (5003, "broadened"),  # the best seller first
        (5002, "broadened"),
    ]
    assert retrieval.match_tier == "broadened"


def test_with_no_category_named_the_nearest_category_stands_in(appliances):
    asked = plan(["fridge"])

    assert tier_ids("semantic", asked, 10) == [5001]
    assert tier_ids("broadened", asked, 10) == []  # no category was named


def test_the_semantic_tier_keeps_to_budget_region_and_exclusions(appliances):
    def asked(**limits):
        return SearchQuery(
            text="", keywords=["fridge"], categories=["Kitchen Appliances"], **limits
        )

    Product.objects.filter(id=5001).update(price_usd=Decimal("500.00"))
    assert tier_ids("semantic", asked(budget_max=100), 10) == []
    assert tier_ids("semantic", asked(budget_max=600), 10) == [5001]

    Product.objects.filter(id=5001).update(regions=["US"])
    assert tier_ids("semantic", asked(region="IN"), 10) == []
    assert tier_ids("semantic", asked(region="US"), 10) == [5001]

    assert tier_ids("semantic", asked(excluded=[["whirlpool"]]), 10) == []
    assert tier_ids("semantic", asked(excluded=[["samsung"]]), 10) == [5001]


@override_settings(SEMANTIC_SEARCH=False)
def test_the_setting_turns_the_signal_off(appliances, no_synonym_list):
    asked = plan(["fridge"], ["Kitchen Appliances"])

    assert tier_ids("semantic", asked, 10) == []
    retrieval = retrieve(asked, 3)
    assert [hit.tier for hit in retrieval.hits] == ["broadened"] * 3
    assert retrieval.hits[0].product_id == 5003  # the category by sales: no meaning read

    kettle = Product.objects.get(id=5003)
    kettle.title = "Electric Kettle 1.8 L"
    kettle.save()
    assert Product.objects.get(id=5003).embedding is None  # never a stale vector


def test_a_text_the_model_reads_no_word_of_keeps_no_vector(db):
    kept = semantic.embeddings(["", "Steel Kettle"])

    assert kept[0] is None  # the model answers NaN for it: never stored as a direction
    assert kept[1] is not None
    assert semantic.query_vector("   ") is None


def test_embed_catalog_writes_what_is_missing(appliances):
    Product.objects.filter(id__in=[5001, 5002]).update(embedding=None)
    out = StringIO()

    call_command("embed_catalog", stdout=out, stderr=StringIO())

    assert out.getvalue().strip() == "embedded 2 products"
    assert Product.objects.filter(embedding__isnull=True).count() == 0
    assert tier_ids("semantic", plan(["fridge"], ["Kitchen Appliances"]), 10) == [5001]


@override_settings(SEMANTIC_SEARCH=False)
def test_embed_catalog_refuses_while_the_signal_is_off(appliances):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="SEMANTIC_SEARCH is off"):
        call_command("embed_catalog", stdout=StringIO(), stderr=StringIO())


def test_a_misspelt_word_means_what_the_catalog_s_word_it_misspells_means(appliances):
    """The model of meaning reads "ketle" as pieces of nothing; the catalog's "kettle" is what
    the shopper meant."""
    from catalog import meaning

    misspelt = meaning.of(plan(["electric ketle"]))

    assert misspelt is not None
    assert misspelt.words == ("electric", "kettle")
    assert misspelt.vector.tolist() == vector("electric kettle").tolist()


def test_a_word_near_a_catalog_word_of_another_first_letter_keeps_its_own_meaning(appliances):
    """ "rettle" is one edit from "kettle", but a slip keeps the first letter: no correction."""
    from catalog import meaning

    asked = meaning.of(plan(["electric rettle"]))

    assert asked is not None
    assert asked.words == ("electric", "rettle")


def test_the_wanted_kind_written_apart_is_served_though_unlike_the_query_in_meaning(db):
    """The model of meaning does not know that a "Pen Drive" is a "pendrive"; the speakers that
    support one mention the word it knows. A product of the wanted kind that names it in the
    two words titles write apart stays in the partial tier, before those that only mention it."""
    shelf = [
        (5101, "HP v236w USB 2.0 64GB Pen Drive, Metal", "All Electronics"),
        (5102, "Sound Feast 50 Portable Speaker Supporting Bluetooth, Pendrive Slot", "Speakers"),
        (5103, "Bluetooth/SD Card/Pendrive Home Theatre System with FM Radio", "Speakers"),
        (5104, "Tower Home Theater System, Supports Pendrive/SD Card/FM", "Speakers"),
        (5105, "Laptop Backpack for Men", "Backpacks"),
        (5106, "Laptop Table for Bed", "Furniture"),
        # "laptop", as in a catalog, more common than "pendrive"
        (5107, "Laptop Sleeve 15.6 inch", "Bags"),
        (5108, "Laptop Stand, Aluminium", "Furniture"),
        (5109, "Laptop Cooling Pad", "Computers"),
        (5110, "Wireless Mouse for Laptop", "Computers"),
    ]
    for pid, title, category in shelf:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="tv, audio & cameras",
            category_l2=category, price_usd=Decimal("9.00"), regions=[],
        )  # fmt: skip
    query = SearchQuery(
        text="top pendrive for laptop",
        keywords=["pendrive", "laptop"],
        categories=[],
        reading="top pendrive for laptop",
        wanted=(("pendriv",),),
    )

    found = retrieve(query, 3).hits

    assert (found[0].product_id, found[0].tier) == (5101, "partial")


def test_a_word_titles_write_as_two_is_answered_by_the_two(db):
    """The model of meaning compares a title's words one by one: "mat" alone is only near
    "doormat". Where the catalog writes it as two ("Door Mat"), a title holding the two answers
    the word as one holding it whole does, and better than a bath mat."""
    from catalog import meaning

    for pid, title in [(5201, "Kuber Door Mat"), (5202, "Door Mat for Home"), (5203, "Bath Mat")]:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="home", category_l2="Mats",
            price_usd=Decimal("5.00"), regions=[],
        )  # fmt: skip
    ProductFactory(
        id=5204, title="Coir Doormat", tags=[], brand=None, category_l1="home",
        category_l2="Mats", price_usd=Decimal("5.00"), regions=[],
    )  # fmt: skip
    asked = meaning.of(plan(["doormat"]))
    assert asked is not None
    assert asked.apart == (("doormat", ("door", "mat")),)

    door_mat, bath_mat, doormat = semantic.word_likeness(
        asked.words, [("door", "mat"), ("bath", "mat"), ("coir", "doormat")], dict(asked.apart)
    )
    alone, _, _ = semantic.word_likeness(
        asked.words, [("door", "mat"), ("bath", "mat"), ("coir", "doormat")]
    )

    assert door_mat == pytest.approx(doormat, abs=0.01)
    assert door_mat > bath_mat
    assert door_mat > alone + 0.1


def test_a_word_titles_write_as_two_is_read_in_its_two_words_as_written(db):
    """The model of meaning reads words, not stems: "tablecloth" as "table" and "cloth", not
    the stem "tabl"."""
    from catalog import compounds

    for pid, title in [(5301, "Cotton Table Cloth"), (5302, "Table Cloth, 6 Seater")]:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="home",
            category_l2="Linen", price_usd=Decimal("5.00"), regions=[],
        )  # fmt: skip
    ProductFactory(
        id=5303, title="Printed Tablecloth", tags=[], brand=None, category_l1="home",
        category_l2="Linen", price_usd=Decimal("5.00"), regions=[],
    )  # fmt: skip

    assert compounds.written_apart("tablecloth") == ("table", "cloth")
    assert compounds.apart("tablecloth") == [["tabl", "cloth"]]
