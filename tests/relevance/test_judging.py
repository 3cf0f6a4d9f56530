"""The judge of `make relevance` (relevance/judging.py, relevance/sets.py): the released sets'
rule semantics, budgets in rupees judged in dollars at the catalog's rate, and P@k and nDCG as
the released sets count them. Pure functions: no gateway involved."""

import json

import pytest

from relevance.judging import (
    INR_PER_USD,
    Product,
    Query,
    Rule,
    Served,
    evaluate,
    ndcg,
    patterns,
    precision,
)
from relevance.sets import toml_queries


def product(pid: int, title: str, price: float | None = 10.0, *categories: str) -> Product:
    return Product.from_line(
        {"id": pid, "title": title, "price_usd": price, "category_l2": (categories or ("X",))[0],
         "regions": ["IN"]}
    )  # fmt: skip


def query(rule: dict, budget: dict | None = None, exclude: tuple[str, ...] = ()) -> Query:
    resolution = {"budget": budget or {"min": None, "max": None, "currency": None}}
    return Query("t", "q", "kind", "words", resolution, Rule.of(rule), patterns(exclude))


def test_a_clause_needs_every_title_all_no_title_none_and_one_of_its_categories():
    rule = Rule.of({"title_all": ["saree"], "title_none": ["silk"], "category_any": ["Sarees"]})

    assert rule.accepts(product(1, "Cotton Saree", 9, "Sarees"))
    assert not rule.accepts(product(2, "Art Silk Saree", 9, "Sarees"))
    assert not rule.accepts(product(3, "Cotton Saree", 9, "Kurtas"))
    assert not rule.accepts(product(4, "Cotton Kurta", 9, "Sarees"))


def test_any_clause_will_do_and_the_rules_own_title_none_and_prices_bind_them_all():
    rule = Rule.of(
        {
            "any": [{"title_all": ["\\btoy\\b"]}, {"category_any": ["Toys & Games"]}],
            "title_none": ["charger"],
            "price_max": 15,
        }
    )

    assert rule.accepts(product(1, "Wooden Toy Car", 12))
    assert rule.accepts(product(2, "Puzzle Set", 12, "Toys & Games"))
    assert not rule.accepts(product(3, "Toy Drone Charger", 12))
    assert not rule.accepts(product(4, "Wooden Toy Car", 16))
    assert not rule.accepts(product(5, "Wooden Toy Car", None))


def test_titles_are_read_unescaped_and_in_any_case():
    rule = Rule.of({"title_all": ["men's"]})

    assert rule.accepts(product(1, "Puma MEN&#39;S Sneakers"))


def test_a_budget_in_rupees_is_judged_in_dollars_at_the_catalogs_rate():
    asked = query({"title_all": ["bag"]}, {"min": 800, "max": 2500, "currency": "INR"})

    assert asked.budget_usd() == pytest.approx((800 / INR_PER_USD, 2500 / INR_PER_USD))
    assert asked.violation(product(1, "Bag", 24.0)) is None  # 1,980 rupees
    assert asked.violation(product(2, "Bag", 31.0)) == "budget"  # 2,557 rupees
    assert asked.violation(product(3, "Bag", 9.0)) == "budget"  # 742 rupees
    assert asked.violation(product(4, "Bag", None)) == "budget"


def test_an_excluded_product_is_never_relevant_and_is_counted_when_served():
    asked = query({"title_all": ["tripod"]}, exclude=("gorilla",))
    catalog = {1: product(1, "Gorilla Tripod"), 2: product(2, "Camera Tripod Stand")}

    scores = evaluate([asked], [Served([1, 2], ["strict", "strict"])], catalog)

    assert not asked.relevant(catalog[1])
    assert scores.excluded == 1
    assert scores.p3 == pytest.approx(1 / 3)


def test_p_at_k_counts_over_k_and_an_absent_product_scores_nothing():
    assert precision([0, 0, 1], 3) == pytest.approx(1 / 3)
    assert precision([1, 1, 1, 0], 3) == 1
    absent = query({"title_all": ["espresso machine"]})
    catalog = {1: product(1, "Coffee Mug")}

    scores = evaluate([absent], [Served([1], ["partial"])], catalog)

    assert (scores.p_queries, scores.queries) == (1, 0)  # in P@k, not in nDCG
    assert scores.p3 == 0


def test_ndcg_is_over_the_ideal_list_of_every_relevant_product():
    assert ndcg([1, 1, 0], 2) == 1
    assert ndcg([0, 1], 1) == pytest.approx(1 / 1.584962500721156)


def test_the_gateways_first_set_reads_into_the_same_form(tmp_path):
    path = tmp_path / "queries.toml"
    path.write_text(
        '[[query]]\ntext = "steel lunch box"\nkeywords = ["lunch box"]\n'
        "title = ['lunch box']\nnot_title = ['bag']\nbudget_max = 10.0\n"
        'exclude = ["plastic"]\nexcluded = ["plastic"]\nkind = "exclusion"\n'
    )

    (loaded,) = toml_queries(path, "own")

    assert loaded.kind == "exclusion"
    assert loaded.resolution["budget"] == {"min": None, "max": 10.0, "currency": "USD"}
    assert loaded.resolution["exclude"] == ["plastic"]
    assert loaded.relevant(product(1, "Steel Lunch Box", 9))
    assert not loaded.relevant(product(2, "Plastic Lunch Box", 9))
    assert not loaded.relevant(product(3, "Steel Lunch Box", 11))
    assert not loaded.relevant(product(4, "Lunch Box Bag", 9))
    assert json.dumps(loaded.resolution)  # what the scripted engine answers


def test_a_price_the_rule_alone_states_and_a_translated_normalized_query(tmp_path):
    """ "sasta trimmer": the model states no budget (the resolution's is empty) and normalizes
    the words into English; the rule holds products to the lower prices of their kind."""
    path = tmp_path / "queries.toml"
    path.write_text(
        '[[query]]\ntext = "sasta trimmer"\nnormalized = "cheap trimmer"\n'
        'keywords = ["trimmer"]\ntitle = [\'trimmer\']\nprice_max = 4\nkind = "cheap"\n'
    )

    (loaded,) = toml_queries(path, "own")

    assert loaded.resolution["normalized_query"] == "cheap trimmer"
    assert loaded.resolution["budget"] == {"min": None, "max": None, "currency": "USD"}
    assert loaded.relevant(product(1, "Beard Trimmer", 3.5))
    assert not loaded.relevant(product(2, "Beard Trimmer", 12))
