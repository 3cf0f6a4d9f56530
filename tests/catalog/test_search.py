"""Tiered retrieval (catalog/search.py, on the database's full-text search of
catalog/fulltext.py) on the database under test."""

import pytest

from catalog import search, spelling, trending
from catalog.models import Product
from catalog.search import SearchQuery, retrieve, tier_ids
from tests.factories import ProductFactory

pytestmark = pytest.mark.django_db


def query(text="", keywords=(), categories=(), **filters):
    return SearchQuery(text=text, keywords=list(keywords), categories=list(categories), **filters)


def found(retrieval):
    return [(hit.product_id, hit.tier) for hit in retrieval.hits]


def test_raw_substring_finds_the_shoppers_own_words_in_a_title(shelf):
    retrieval = retrieve(query("gtx trail running shoe", ["nothing-like-it"]), 1)

    assert found(retrieval) == [(2001, "raw_substring")]
    assert (retrieval.match_tier, retrieval.note) == ("raw_substring", None)


def test_strict_keeps_every_keyword_inside_the_categories_and_narrow_drops_the_category(shelf):
    plan = query("trail running gear", ["trail", "running"], ["Running Shoes"])

    assert tier_ids("strict", plan, 10) == [2001]
    assert sorted(tier_ids("narrow", plan, 10)) == [2001, 2003]
    retrieval = retrieve(plan, 2)
    assert found(retrieval) == [(2001, "strict"), (2003, "narrow")]
    assert retrieval.match_tier == "narrow"


def test_fuzzy_forgives_a_misspelt_word_that_no_exact_tier_matches(shelf):
    plan = query("waterprooff kit", ["waterprooff"])

    assert tier_ids("narrow", plan, 10) == []
    assert sorted(tier_ids("fuzzy", plan, 10)) == [2001, 2004]


def test_fuzzy_corrects_to_the_catalogs_own_words_only(shelf):
    assert spelling.correction("waterprooff") == "waterproof"
    assert spelling.correction("blendr") == "blender"
    assert spelling.correction("mernio") == "merino"  # two letters swapped: one edit
    # "blah" is spelled like no word of the catalog within one edit.
    assert spelling.correction("blah") is None
    assert spelling.correction("waterproof") is None  # known and common enough
    assert tier_ids("fuzzy", query("", ["qwertyuiop"]), 10) == []


def test_fuzzy_words_under_four_letters_are_not_corrected(shelf):
    assert tier_ids("fuzzy", query("", ["vst"]), 10) == []


def test_fuzzy_keeps_the_other_keywords_and_puts_the_categories_first(shelf):
    assert tier_ids("fuzzy", query("", ["waterprooff", "boot"]), 10) == [2004]
    everywhere = tier_ids("fuzzy", query("", ["waterprooff"]), 10)
    inside_first = tier_ids("fuzzy", query("", ["waterprooff"], ["Hiking Boots"]), 10)

    assert len(everywhere) > 1  # the shelf has other waterproof things
    assert inside_first[0] == 2004  # the boots of the categories, then what is outside them
    assert sorted(inside_first) == sorted(everywhere)


def test_fuzzy_never_matches_category_names(shelf):
    # "Kitchen Appliances" is only a category name: no title, tag or brand says "appliances".
    assert tier_ids("fuzzy", query("", ["applainces"]), 10) == []
    assert sorted(tier_ids("narrow", query("", ["appliances"]), 10)) == [2006, 2007]


def test_a_saved_product_is_searchable_at_once_with_its_new_words(shelf):
    assert tier_ids("fuzzy", query("", ["kayakk"]), 10) == []
    socks = Product.objects.get(id=2005)
    socks.title = "Merino Kayak Socks"
    socks.save()

    assert tier_ids("fuzzy", query("", ["kayakk"]), 10) == [2005]
    assert tier_ids("narrow", query("", ["kayak"]), 10) == [2005]


def test_a_save_of_some_fields_keeps_the_search_document_in_step(shelf):
    socks = Product.objects.get(id=2005)
    socks.title = "Merino Canoe Socks"
    socks.save(update_fields=["title"])

    assert tier_ids("narrow", query("", ["canoe"]), 10) == [2005]
    assert tier_ids("narrow", query("", ["hiking", "socks"]), 10) == []


def test_words_match_whole_words_with_their_stems(shelf):
    ProductFactory(id=2101, title="Women's Trail Jacket", category_l2="Jackets", tags=[])
    ProductFactory(id=2102, title="Men's Trail Jacket", category_l2="Jackets", tags=[])

    assert tier_ids("narrow", query("", ["men", "jacket"]), 10) == [2102]
    assert tier_ids("narrow", query("", ["women", "jackets"]), 10) == [2101]
    assert sorted(tier_ids("narrow", query("", ["shoes"]), 10)) == [2001, 2002]


def test_a_keyword_in_british_spelling_finds_titles_in_american_and_back(shelf):
    """ "home theatre" finds a "Home Theater" (the catalog writes both), in the tiers of every
    keyword and as the brand's product of the wanted type."""
    ProductFactory(id=2111, title="Tronica Home Theater with Subwoofer", category_l2="Audio")
    ProductFactory(id=2112, title="Obage Home Theatre System", category_l2="Audio")
    ProductFactory(id=2113, title="Tronica Bluetooth Speaker", category_l2="Audio")

    assert sorted(tier_ids("narrow", query("", ["home theatre"]), 10)) == [2111, 2112]
    assert sorted(tier_ids("narrow", query("", ["home theater"]), 10)) == [2111, 2112]
    assert tier_ids("narrow", query("", ["tronica", "home theatre"]), 10) == [2111]


def test_a_plural_the_stemmer_cannot_bring_back_finds_the_singular_and_back(shelf):
    """ "corner shelves" finds a "Corner Shelf", "kitchen knife" a "Kitchen Knives" set and
    "wireless mouse" "Wireless Mice" (catalog/plurals.py), and a word that only ends like a
    plural ("Olives") still meets its own singular."""
    ProductFactory(id=2121, title="Bathroom Corner Shelf, Self Adhesive", category_l2="Storage")
    ProductFactory(id=2122, title="Steel Corner Shelves for Kitchen", category_l2="Storage")
    ProductFactory(id=2123, title="Kitchen Knives Set of 3", category_l2="Kitchen")
    ProductFactory(id=2124, title="Pitted Black Olives, 450 g", category_l2="Grocery")
    ProductFactory(id=2125, title="Wireless Mice, Pack of 2", category_l2="Computers")

    assert sorted(tier_ids("narrow", query("", ["corner shelves"]), 10)) == [2121, 2122]
    assert sorted(tier_ids("narrow", query("", ["corner shelf"]), 10)) == [2121, 2122]
    assert tier_ids("narrow", query("", ["kitchen knife"]), 10) == [2123]
    assert tier_ids("narrow", query("", ["wireless mouse"]), 10) == [2125]
    assert tier_ids("narrow", query("", ["black olive"]), 10) == [2124]


def test_a_phrase_keyword_needs_its_words_in_order_and_near(shelf):
    ProductFactory(id=2101, title="Lloyd 1.5 Ton 3 Star Inverter AC", category_l2="AC", tags=[])
    ProductFactory(id=2102, title="LG 1.5 Ton 5 Star Inverter AC", category_l2="AC", tags=[])

    assert tier_ids("narrow", query("", ["5 star"]), 10) == [2102]
    assert sorted(tier_ids("narrow", query("", ["running shoe"]), 10)) == [2001, 2002]
    assert tier_ids("narrow", query("", ["shoe running"]), 10) == []


def test_a_phrase_never_spans_two_fields(shelf):
    # The vest's title ends in "Vest" and its tags begin with "hydration": the database finds
    # the words side by side, the tier's own check refuses a phrase across fields.
    assert tier_ids("narrow", query("", ["vest hydration"]), 10) == []
    assert tier_ids("narrow", query("", ["running vest"]), 10) == [2003]


def test_inside_a_tier_the_best_match_of_the_products_own_text_comes_first(shelf):
    ProductFactory(id=2101, title="Seat Cushion", category_l2="Strollers", tags=["stroller"])
    ProductFactory(id=2102, title="Lightweight Stroller", category_l2="Strollers", tags=[])
    ProductFactory(id=2103, title="Stroller Rain Cover", category_l2="Strollers", tags=[])

    # The title outweighs a tag; the stroller itself comes before a cover for one.
    assert tier_ids("narrow", query("", ["stroller"]), 10) == [2102, 2103, 2101]


def test_broadened_ranks_by_the_keywords_first_and_sales_second(shelf):
    plan = query("", ["vest", "zzzz"], ["Running Shoes", "Running Gear"])

    # The shoe sells more with creators; the vest is what the shopper named.
    assert tier_ids("broadened", plan, 10) == [2003, 2001, 2002]


def test_broadened_returns_the_categories_when_no_keyword_matches(shelf):
    retrieval = retrieve(query("something warm", ["zzzz"], ["Socks"]), 1)

    assert found(retrieval) == [(2005, "broadened")]


def test_trending_fills_by_creator_gmv_of_the_last_30_days_first(shelf):
    retrieval = retrieve(query("qqqq", ["qqqq"]), 3)

    # The blender sold $9k this month; the espresso machine $50k, but 200 days ago.
    assert found(retrieval) == [(2006, "trending"), (2007, "trending"), (2001, "trending")]
    assert (retrieval.match_tier, retrieval.note) == ("none", "trending_suggested")
    assert (retrieval.intent_hits, retrieval.trending_fill) == (0, 3)


def test_intent_hits_then_trending_says_intent_plus_trending(shelf):
    retrieval = retrieve(query("something warm", ["zzzz"], ["Socks"]), 2)

    assert found(retrieval) == [(2005, "broadened"), (2006, "trending")]
    assert retrieval.note == "intent_plus_trending"


# For each tier, a plan that finds products both inside and outside the filters.
PLANS = {
    "raw_substring": ("running shoe", [], []),
    "strict": ("", ["running"], ["Running Shoes"]),
    "narrow": ("", ["running"], []),
    "fuzzy": ("", ["waterprooff"], []),
    "partial": ("", ["trail running", "blender"], []),
    "broadened": ("", ["zzzz"], ["Running Shoes", "Kitchen Appliances", "Socks"]),
    "trending": ("", [], []),
}


def ids_of(tier, plan):
    if tier == "trending":
        return trending.trending_ids(plan, 10)
    return tier_ids(tier, plan, 10)


@pytest.mark.parametrize("tier", PLANS)
def test_no_tier_returns_a_product_not_sold_in_the_region(shelf, tier):
    text, keywords, categories = PLANS[tier]
    regions = dict(Product.objects.values_list("id", "regions"))

    ids = ids_of(tier, query(text, keywords, categories, region="DE"))
    unfiltered = ids_of(tier, query(text, keywords, categories))

    assert ids
    assert all(not regions[pid] or "DE" in regions[pid] for pid in ids)
    assert set(unfiltered) - set(ids), "the region must have excluded some"


@pytest.mark.parametrize("tier", PLANS)
def test_no_tier_exceeds_the_budget(shelf, tier):
    text, keywords, categories = PLANS[tier]
    prices = {
        pid: float(price or 0) for pid, price in Product.objects.values_list("id", "price_usd")
    }

    ids = ids_of(tier, query(text, keywords, categories, budget_max=100.0))
    unfiltered = ids_of(tier, query(text, keywords, categories))

    assert ids
    assert all(prices[pid] <= 100 for pid in ids)
    assert any(prices[pid] > 100 for pid in unfiltered), "the budget must have excluded some"


def test_a_budget_floor_is_kept_too(shelf):
    plan = query("", ["running"], budget_min=100.0)

    assert tier_ids("narrow", plan, 10) == [2002]


def test_the_index_follows_a_renamed_and_a_deleted_product(shelf):
    boot = Product.objects.get(id=2004)
    boot.title = "Alpine Summit Boot"
    boot.save()

    assert tier_ids("raw_substring", query("waterproof hiking"), 5) == []
    assert tier_ids("raw_substring", query("summit boot"), 5) == [2004]
    Product.objects.filter(id=2004).delete()
    assert tier_ids("raw_substring", query("summit boot"), 5) == []


def test_like_wildcards_in_the_shoppers_words_match_nothing_extra(shelf):
    assert tier_ids("raw_substring", query("%"), 5) == []
    assert tier_ids("raw_substring", query("tr_il"), 5) == []
    assert tier_ids("narrow", query("", ["%", "_"]), 5) == []


def test_quotes_and_operators_in_keywords_are_searched_as_text(shelf):
    plan = query("", ['trail" OR "blender', "NEAR(", "running AND"])

    for tier in search.TIERS:
        # The partial tier finds the products holding some of the words, read as words; the
        # semantic tier those nearest in meaning to them ("trail", "blender").
        assert tier_ids(tier, plan, 5) == [] or tier in ("fuzzy", "partial", "semantic")


def test_catalog_categories_lists_both_levels(shelf):
    assert search.catalog_categories() == [
        "Hiking Boots",
        "Home & Kitchen",
        "Kitchen Appliances",
        "Running Gear",
        "Running Shoes",
        "Socks",
        "Sports & Outdoors",
    ]


@pytest.mark.parametrize("tier", PLANS)
def test_no_tier_serves_what_the_shopper_ruled_out(shelf, tier):
    text_, keywords, categories = PLANS[tier]
    unfiltered = ids_of(tier, query(text_, keywords, categories))
    titles = dict(Product.objects.values_list("id", "title"))
    # The last word of the first product's title is ruled out.
    ruled = search.text.query_terms(titles[unfiltered[0]])[-1]

    ids = ids_of(tier, query(text_, keywords, categories, excluded=[[ruled]]))

    assert unfiltered[0] not in ids
    assert all(ruled not in search.text.terms(titles[pid]) for pid in ids)


def test_a_word_the_catalog_knows_is_corrected_only_into_one_of_its_first_letter(db):
    """Catalogs misspell too: "matress", held by one product beside a common "mattress", is
    corrected; "couch", held by one product beside a common "pouch", is another word."""
    for n in range(11):
        ProductFactory(title=f"Cotton Pouch {n}", tags=[], brand=None)
        ProductFactory(title=f"Foam Mattress {n}", tags=[], brand=None)
    ProductFactory(title="Leather Couch Patch", tags=[], brand=None)
    ProductFactory(title="Soft Matress Topper", tags=[], brand=None)

    assert spelling.correction("matress") == "mattress"
    assert spelling.correction("couch") is None


def test_a_wanted_kind_misspelt_is_corrected_from_its_stem(db):
    """A wanted kind is read as stems ("ketle": ketl), whose nearest word within an edit is
    "keto"; compared with each word's stem, it is the kettle ("kettl"), the more common."""
    for n in range(6):
        ProductFactory(title=f"Electric Kettle {n}", tags=[], brand=None)
    ProductFactory(title="Keto Snack Bar", tags=[], brand=None)

    assert spelling.correction("ketl") == "keto"
    assert ("electr", "kettl") in spelling.corrected_kinds([("electr", "ketl")])


def test_asked_cheap_the_cheapest_comes_first_whichever_words_found_it(db):
    """The chinos are found asking for "pants", the other name of trousers
    (catalog/synonyms.py), after the trousers found in the shopper's own word."""
    for pid, title, price in (
        (2101, "Men's Cotton Trousers", "20.00"),
        (2102, "Men's Linen Trousers", "25.00"),
        (2103, "Men's Chino Pants", "5.00"),
    ):
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l2="Menswear", price_usd=price
        )
    plan = query("cheap trousers", ["trousers"], ["Menswear"], cheapest_first=True)

    assert tier_ids("strict", plan, 3) == [2103, 2101, 2102]
    assert tier_ids("strict", query("trousers", ["trousers"], ["Menswear"]), 3)[2] == 2103


def test_a_misspelling_that_sounds_like_a_word_is_corrected_one_edit_further(db):
    """A shopper writes a word as it sounds: "shampu" is two edits from "shampoo" and "crikt"
    two from "cricket", each sounding alike (spelling.sounds); "mixie" sounds like the
    shorter "mix" and is not read as it (a shopper drops letters, rarely adds them)."""
    for n in range(3):
        ProductFactory(title=f"Herbal Shampoo {n}", tags=[], brand=None)
        ProductFactory(title=f"Cricket Bat {n}", tags=[], brand=None)
        ProductFactory(title=f"Trail Mix {n}", tags=[], brand=None)

    assert spelling.correction("shampu") == "shampoo"
    assert spelling.correction("crikt") == "cricket"
    assert spelling.correction("mixie") is None
    assert spelling.sounds("earfone") == spelling.sounds("earphone")
    assert spelling.sounds("wach") != spelling.sounds("wax")


def test_a_correction_keeps_the_first_letter_then_sounds_like_the_word(db):
    """ "sandles" is one edit from "handles" and two from "sandals": the shopper's first
    letter wins. "chargr" is one edit from both "charge" and "charger": the one that sounds
    like it wins, however common the other."""
    for n in range(12):
        ProductFactory(title=f"Door Handles {n}", tags=[], brand=None)
        ProductFactory(title=f"Fast Charge Cable {n}", tags=[], brand=None)
    ProductFactory(title="Leather Sandals", tags=[], brand=None)
    ProductFactory(title="Phone Charger", tags=[], brand=None)

    assert spelling.correction("sandles") == "sandals"
    assert spelling.correction("chargr") == "charger"


def test_a_misspelling_the_stemmer_cuts_to_another_word_is_still_corrected(db):
    """ "earings" is no title's word, but its stem is "ear", which many titles hold ("In Ear
    Earphones"): it is corrected, one letter off and of its first letter, into "earrings".
    A word of the language cut the same way ("getting": get) has no such correction, and a
    word titles write keeps its spelling ("earphones")."""
    for n in range(6):
        ProductFactory(title=f"In Ear Wired Earphones {n}", tags=[], brand=None)
        ProductFactory(title=f"Setting Spray {n}", tags=[], brand=None)
    ProductFactory(title="Gold Plated Jhumki Earrings for Women", tags=[], brand=None)
    ProductFactory(title="Get Well Card", tags=[], brand=None)

    assert spelling.correction("earings") == "earrings"
    assert spelling.correction("getting") is None  # "setting" begins otherwise
    assert spelling.correction("earphones") is None
    read, guessed, _ = spelling.known(["jhumki earings"])
    assert read == [["jhumki", "earring"]]
    assert guessed == {"earring"}
