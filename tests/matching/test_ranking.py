"""The ranking module's documented components, one at a time (pure functions, no database)."""

from datetime import UTC, datetime

import pytest

from matching import ranking

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def facts(**overrides) -> ranking.ProposalFacts:
    values = {
        "proposal_id": "prp_a",
        "price": 50.0,
        "inventory_status": "in_stock",
        "shipping_days": 2,
        "free_shipping": False,
        "commission_rate": 0.2,
        "evidence_count": 3,
        "product_terms": frozenset({"trail", "run", "shoe"}),  # stems, as catalog/text.py reads
        "reliability": 1.0,
        "order": 0,
        **overrides,
    }
    return ranking.ProposalFacts(**values)


def intent(tags=("trail",), low=None, high=100.0) -> ranking.IntentFacts:
    return ranking.IntentFacts(tags=tuple(tags), budget_min=low, budget_max=high)


def test_weights_sum_to_one():
    assert sum(ranking.WEIGHTS.values()) == pytest.approx(1.0)


def test_a_perfect_proposal_scores_one():
    assert ranking.score(intent(), facts())["score"] == 1.0


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        (("trail",), 1.0),
        (("trail", "hiking"), 0.5),
        (("running shoe",), 1.0),
        (("running boot",), 0.0),
        ((), 0.5),
    ],
)
def test_relevance(tags, expected):
    assert ranking.score(intent(tags=tags), facts())["components"]["relevance"] == expected


@pytest.mark.parametrize(
    ("price", "low", "high", "expected"),
    [
        (50, None, 100, 1.0),
        (100, None, 100, 1.0),
        (150, None, 100, 0.5),
        (250, None, 100, 0.0),
        (5, 10, 100, 0.8),
        (None, None, 100, 0.2),
        (50, None, None, 0.5),
    ],
)
def test_price_fit(price, low, high, expected):
    result = ranking.score(intent(low=low, high=high), facts(price=price))
    assert result["components"]["price_fit"] == expected


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("in_stock", 1.0),
        ("low_stock", 0.7),
        ("preorder", 0.4),
        ("unknown", 0.3),
        ("out_of_stock", 0.0),
    ],
)
def test_availability(status, expected):
    assert (
        ranking.score(intent(), facts(inventory_status=status))["components"]["availability"]
        == expected
    )


@pytest.mark.parametrize(
    ("days", "free", "expected"),
    [
        (1, False, 1.0),
        (5, False, 0.8),
        (5, True, 0.9),
        (10, False, 0.5),
        (30, False, 0.2),
        (None, False, 0.3),
        (None, True, 0.4),
    ],
)
def test_shipping(days, free, expected):
    result = ranking.score(intent(), facts(shipping_days=days, free_shipping=free))
    assert result["components"]["shipping"] == pytest.approx(expected)


def test_evidence_and_commission_saturate():
    result = ranking.score(intent(), facts(evidence_count=1, commission_rate=0.05))
    assert result["components"]["evidence"] == pytest.approx(1 / 3, abs=1e-4)
    assert result["components"]["commission"] == 0.25


@pytest.mark.parametrize(
    ("status", "seen_recently", "expected"),
    [("active", True, 1.0), ("active", False, 0.6), ("unhealthy", True, 0.3), (None, False, 0.8)],
)
def test_merchant_reliability(status, seen_recently, expected):
    assert ranking.merchant_reliability(status=status, seen_recently=seen_recently) == expected


def test_score_inputs_read_the_submission_once():
    inputs = ranking.score_inputs(
        price=9.5,
        inventory_status="in_stock",
        shipping_commitment={"days": 3, "free": True},
        commission_plan={"percent": 12},
        evidence=[{}, {}],
        product_fields=ranking.product_fields(
            title="TrailFox GTX-2 Shoes",
            tags=["trail"],
            brand="TrailFox",
            categories=["Sports & Outdoors", "Running Shoes"],
        ),
    )

    assert inputs == {
        "price": 9.5,
        "inventory_status": "in_stock",
        "shipping_days": 3,
        "free_shipping": True,
        "commission_rate": 0.12,
        "evidence_count": 2,
        "product_terms": ["2", "gtx", "outdoor", "run", "shoe", "sport", "trail", "trailfox"],
        "product_fields": {
            "title": "2 gtx shoe trailfox",
            "tags": "trail",
            "brand": "trailfox",
            "category": "outdoor run shoe sport",
        },
    }


def test_relevance_reads_the_products_own_text_never_the_offer_title():
    """A merchant who titles a sleeping bag "trail running waterproof" gains nothing: only
    the product's catalog text is scored, and the reasons name the fields that matched."""

    def inputs(title, tags, categories):
        return ranking.score_inputs(
            price=None,
            inventory_status="in_stock",
            shipping_commitment={},
            commission_plan={},
            evidence=[],
            product_fields=ranking.product_fields(
                title=title, tags=tags, brand=None, categories=categories
            ),
        )

    sleeping_bag = inputs("Down Sleeping Bag", ["camping"], ["Camping"])
    shoe = inputs("TrailFox Trail Running Shoe", ["waterproof"], [])
    wanted = intent(tags=("trail running", "waterproof"))

    def scored(inputs, proposal_id):
        terms, fields = ranking.stored_terms(inputs)
        return ranking.score(
            wanted, facts(proposal_id=proposal_id, product_terms=terms, product_fields=fields)
        )

    assert scored(sleeping_bag, "prp_bag")["components"]["relevance"] == 0.0
    best = scored(shoe, "prp_shoe")
    assert best["components"]["relevance"] == 1.0
    assert best["reasons"][0] == (
        "matches 2 of 2 intent tags: trail running (title), waterproof (tags)"
    )


def test_inputs_stored_as_a_list_of_words_are_still_read():
    terms, fields = ranking.stored_terms({"product_terms": ["trail", "running", "shoes"]})

    assert terms == frozenset({"trail", "run", "shoe"})
    assert fields == {"text": "trail run shoe"}


@pytest.mark.parametrize(
    "plan", [{"rate": 5}, {"rate": True}, {"rate": "0.1"}, {"percent": "x"}, {}]
)
def test_nonsense_commission_plans_count_as_none(plan):
    inputs = ranking.score_inputs(
        price=None,
        inventory_status="unknown",
        shipping_commitment={"days": -1},
        commission_plan=plan,
        evidence=[],
        product_fields={},
    )
    assert inputs["commission_rate"] is None
    assert inputs["shipping_days"] is None


def test_rank_orders_and_numbers_deterministically():
    proposals = [
        facts(proposal_id="prp_c", price=30.0, order=0),
        facts(proposal_id="prp_d", price=20.0, order=2),
        facts(proposal_id="prp_b", price=20.0, order=1),
        facts(proposal_id="prp_a", price=20.0, order=1),
        facts(proposal_id="prp_z", inventory_status="out_of_stock"),
    ]

    ranked = ranking.rank(intent(), proposals)

    assert [(item["rank"], item["proposal_id"]) for item in ranked] == [
        (1, "prp_a"),
        (2, "prp_b"),
        (3, "prp_d"),
        (4, "prp_c"),
        (5, "prp_z"),
    ]
    assert ranking.rank(intent(), reversed(proposals)) == ranked


def test_only_the_top_limit_is_returned_and_explained():
    proposals = [facts(proposal_id=f"prp_{n}", price=float(n), order=n) for n in range(50)]

    ranked = ranking.rank(intent(), proposals, limit=3)

    assert [item["proposal_id"] for item in ranked] == ["prp_0", "prp_1", "prp_2"]
    assert all(item["reasons"] and item["components"] for item in ranked)


@pytest.mark.parametrize(
    ("status", "said"),
    [("in_stock", "in stock"), ("out_of_stock", "out of stock"), ("unknown", "stock not stated")],
)
def test_the_reasons_say_the_stock_in_words(status, said):
    reasons = ranking.score(intent(), facts(inventory_status=status))["reasons"]

    assert said in reasons
