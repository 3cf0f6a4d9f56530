"""Words that name the same thing (catalog/synonyms.py): the every-keyword tiers ask a keyword
in other words of its meaning, the shopper's own words first, within every rule of the tier."""

from decimal import Decimal

import pytest

from catalog import synonyms, text
from catalog.search import SearchQuery, retrieve, tier_ids
from tests.factories import ProductFactory

HOME = [
    (5001, "Velvet Sofa Cover for 3 Seater", "Home Furnishing", "18.00", []),
    (5002, "Stretchable Sofa Cover Grey", "Home Furnishing", "45.00", []),
    (5003, "Couch Cover Waterproof", "Home Furnishing", "25.00", []),
    (5004, "Rain Cover with Pouch for Backpacks", "Bags", "9.00", []),
    (5005, "Cotton Pillow Cover Set", "Home Furnishing", "8.00", []),
    (5006, "Plastic Sofa Cover Transparent", "Home Furnishing", "12.00", []),
    (5007, "Men's Slim Fit Track Pants", "Sportswear", "20.00", []),
    (5008, "Women's Regular Trousers", "Western Wear", "20.00", []),
    (5009, "Men's Formal Trousers", "Men's Fashion", "30.00", ["US"]),
    (5010, "Analog Steel Watch for Men", "Watches", "40.00", []),
    (5011, "Cotton Bath Mat", "Home Furnishing", "5.00", []),
    (5012, "Anti Skid Bath Mat, Microfibre, Quick Dry", "Home Furnishing", "6.00", []),
    (5013, "Syska 4 Way Power Strip with Master Switch", "Electrical", "8.00", []),
    (5014, "Anchor Spike Guard 4-Way Socket with Single Switch", "Electrical", "9.00", []),
    (5015, "Double Chrome Car Bumper Protector Guard", "Electrical", "5.00", []),
]


@pytest.fixture
def home(db):
    for pid, title, category, price, regions in HOME:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Home",
            category_l2=category, price_usd=Decimal(price), regions=regions,
        )  # fmt: skip


def stems(*keywords: str) -> list[list[str]]:
    return [text.query_terms(keyword) for keyword in keywords]


def test_a_keyword_is_rewritten_in_each_other_word_of_its_group():
    assert synonyms.variants(stems("couch cover")) == [stems("sofa cover"), stems("settee cover")]
    assert synonyms.variants(stems("trousers", "men")) == [stems("pants", "men")]
    # Another language is asked in English, never English in it.
    assert synonyms.variants(stems("zapatos", "running")) == [stems("shoes", "running")]
    assert synonyms.variants(stems("shoes")) == []
    # A phrase of a group is rewritten as a whole before one of its words.
    assert synonyms.variants(stems("chai patti")) == [stems("tea leaves")]
    assert synonyms.variants(stems("garden hose")) == []
    # A thing spelt two ways is one thing ("racket", "racquet").
    assert synonyms.variants(stems("yonex", "badminton racket")) == [
        stems("yonex", "badminton racquet")
    ]


def test_a_rewrite_into_words_another_keyword_holds_is_not_asked():
    """The model said "ghadi" and "watch": asking "watch" twice would only drop a word, which is
    the partial tier's to do."""
    assert synonyms.variants(stems("ghadi", "watch", "men")) == [
        stems("ghadi", "wristwatch", "men")
    ]
    assert synonyms.variants(stems("reloj", "men's watch")) == [stems("reloj", "men's wristwatch")]


def test_two_keywords_are_rewritten_at_once_after_each_alone():
    """A product may say both in other words: "Kids Cycle" for "bicycle for children"."""
    assert synonyms.variants(stems("bicycle", "children")) == [
        stems("cycle", "children"),
        stems("bicycle", "kids"),
        stems("cycle", "kids"),
    ]


def test_rewrites_are_bounded():
    asked = stems("couch", "tv", "fridge", "nappy")
    found = synonyms.variants(asked)
    assert len(found) == synonyms.MOST
    assert all(variant != asked for variant in found)


def test_the_shoppers_words_first_then_their_synonyms_in_the_strict_tier(home):
    asked = SearchQuery(
        text="couch cover", keywords=["couch cover"], categories=["Home Furnishing"]
    )

    found = tier_ids("strict", asked, 10)

    assert found[0] == 5003  # "Couch Cover" itself first
    assert set(found[1:]) == {5001, 5002, 5006}  # then the sofa covers
    assert not {5004, 5005} & set(found)  # a pouch, a pillow cover: no sofa covers
    hits = retrieve(asked, 4).hits
    assert [hit.tier for hit in hits] == ["raw_substring", "strict", "strict", "strict"]


def test_a_quality_is_asked_in_its_other_words_too(home):
    """ "Non slip" is what titles also call anti slip, anti skid or non skid: the bath mat that
    says anti skid holds every keyword in other words, before a bath mat that says nothing of
    it."""
    assert stems("anti skid", "bath mat") in synonyms.variants(stems("non slip", "bath mat"))
    asked = SearchQuery(
        text="non slip bath mat", keywords=["bath mat", "non slip"], categories=["Home Furnishing"]
    )

    hits = retrieve(asked, 2).hits

    assert [(hit.product_id, hit.tier) for hit in hits] == [(5012, "strict"), (5011, "partial")]


def test_a_power_strip_is_asked_by_each_of_its_names(home):
    """ "Extension board", "spike guard", "surge protector" and "power strip" name one thing, in
    India's words and America's; a bumper guard is none."""
    asked = SearchQuery(
        text="good quality extension board", keywords=["extension board"], categories=["Electrical"]
    )

    assert set(tier_ids("strict", asked, 10)) == {5013, 5014}


def test_two_keywords_naming_one_thing_are_asked_as_either(home):
    """A model may list two names of one thing as two keywords: a product holds one of them,
    never both, so each is asked in the other's place."""
    assert synonyms.distinct(stems("spike guard", "surge protector", "4 socket")) == [0, 2]
    assert synonyms.distinct(stems("ghadi", "watch")) == [0, 1]  # a word beside its English
    asked = SearchQuery(
        text="a spike guard for my computer",
        keywords=["spike guard", "surge protector"],
        categories=["Electrical"],
    )

    assert set(tier_ids("strict", asked, 10)) == {5013, 5014}


def test_synonyms_keep_to_budget_region_and_exclusions(home):
    asked = SearchQuery(
        text="couch cover under 20 not plastic",
        keywords=["couch cover"],
        categories=["Home Furnishing"],
        budget_max=20.0,
        excluded=[["plastic"]],
    )

    found = tier_ids("narrow", asked, 10)

    assert found == [5001]  # 5002 is over budget, 5006 plastic, 5003 over budget
    trousers = SearchQuery(text="", keywords=["trousers", "men"], categories=[], region="IN")
    assert tier_ids("narrow", trousers, 10) == [5007]  # 5009 is not sold in India; 5008 women's
