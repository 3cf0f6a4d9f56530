"""Benchmark of proposal ranking (DESIGN.md section 11).

Scores 1,000 proposals with matching.ranking (pure), then times POST /v1/match over the same
1,000 through the whole Django stack, on the 10k-product demo catalog. It removes only the rows
it made (its intents are marked, its merchants named bench-*).

Runs alone (`python bench/match.py`) or as part of `make bench`; see bench/common.py for the
scratch databases. Prints figures; asserts nothing.
"""

import gc
import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common
from bench.common import RUNS, Figure, at_most, median, percentile, timed_ms

PROPOSALS = 1_000
WARM_UP = 5  # a serving process is warm; its first requests load code, not rank proposals


def setup() -> str:
    """A bench intent with 1,000 live proposals; rows of an earlier run removed first."""
    from django.utils import timezone

    from catalog.models import Product, Recommendation
    from gateway.ids import INTENT, PROPOSAL, new_id
    from matching import ranking
    from matching.models import Intent, MatchSession, MatchToken, Proposal
    from merchants.models import MerchantAgent

    # Only what an earlier run of this bench made: its intents are marked, its merchants named.
    bench_intents = Intent.objects.filter(metadata__bench=True)
    Recommendation.objects.filter(intent_id__in=bench_intents.values("intent_id")).delete()
    MatchToken.objects.filter(intent__in=bench_intents).delete()
    MatchSession.objects.filter(intent__in=bench_intents).delete()
    Proposal.objects.filter(intent__in=bench_intents).delete()
    bench_intents.delete()
    MerchantAgent.objects.filter(merchant_id__startswith="bench-").delete()
    # 50 merchants each proposing 20 different products of the catalog: one live proposal per
    # merchant and product, as the gateway allows.
    products = list(Product.objects.order_by("id")[:20])
    merchants = MerchantAgent.objects.bulk_create(
        MerchantAgent(
            merchant_id=f"bench-{n}",
            agent_endpoint="https://93.184.216.34/agent",
            token_hash=f"{n:064d}",
            webhook_secret="whsec_bench",  # noqa: S106 - a bench fixture
            last_seen_at=timezone.now(),
        )
        for n in range(50)
    )
    intent = Intent.objects.create(
        intent_id=new_id(INTENT),
        raw_query="trail running shoes",
        intent_tags=["trail", "running"],
        budget_range={"min": None, "max": 120, "currency": "USD"},
        resolution_source="client",
        metadata={"bench": True},
    )
    statuses = list(ranking.INVENTORY_STATUSES)
    Proposal.objects.bulk_create(
        Proposal(
            proposal_id=new_id(PROPOSAL),
            merchant=merchants[n % len(merchants)],
            intent=intent,
            product=products[n // len(merchants)],
            offer_title=products[n // len(merchants)].title,
            price=Decimal(60 + n % 90),
            inventory_status=statuses[n % len(statuses)],
            proposal_score_inputs=ranking.score_inputs(
                price=float(60 + n % 90),
                inventory_status=statuses[n % len(statuses)],
                shipping_commitment={"max_days": n % 14, "free": n % 3 == 0},
                commission_plan={"rate": (n % 20) / 100},
                evidence=[{}] * (n % 4),
                product_fields={"title": products[n // len(merchants)].title, "tags": "trail"},
            ),
        )
        for n in range(PROPOSALS)
    )
    return intent.intent_id


def scoring_figures(vendor: str, intent_id: str) -> list[Figure]:
    from django.utils import timezone

    from matching import ranking, services
    from matching.models import Intent

    intent = Intent.objects.get(intent_id=intent_id)
    rows = services.candidates_of(intent, timezone.now())
    facts = [services.proposal_facts(services.Candidate(*row), n) for n, row in enumerate(rows)]
    assert len(facts) == PROPOSALS

    def score() -> None:
        ranking.rank(services.intent_facts(intent), facts, limit=10)

    samples = [timed_ms(score) for _ in range(RUNS)]
    print(f"  (scoring p95 {percentile(samples, 0.95):.2f} ms)")
    return [
        at_most(f"ranking {PROPOSALS:,} proposals, scoring, median", vendor, median(samples), 5)
    ]


def match_figures(vendor: str, intent_id: str) -> list[Figure]:
    from django.test import Client

    client = Client(HTTP_HOST="localhost")

    def call() -> None:
        body = {"intent_id": intent_id, "limit": 10}
        response = client.post("/v1/match", body, content_type="application/json")
        assert response.status_code == 201, response.content

    for _ in range(WARM_UP):
        call()
    # As a web worker does once warm (gateway/asgi.py): what start-up and the setup above left
    # in memory is out of the garbage collector's sight, so its full collections walk only what
    # requests make (one of them had walked this process's start-up, 60 ms, into the p95).
    gc.collect()
    gc.freeze()
    samples = [timed_ms(call) for _ in range(RUNS)]
    print(f"  (POST /v1/match median {median(samples):.2f} ms, "
          f"p99 {percentile(samples, 0.99):.2f} ms)")  # fmt: skip
    return [at_most("POST /v1/match (1,000 proposals), p95", vendor, percentile(samples, 0.95), 50)]


def run(database_url: str) -> None:
    common.django_setup(database_url)
    common.ensure_catalog()
    vendor = common.vendor_of(database_url)
    print(f"\n== ranking {PROPOSALS:,} proposals on {common.VENDORS[vendor]}, {RUNS} runs each")
    intent_id = setup()
    common.report(scoring_figures(vendor, intent_id))
    common.report(match_figures(vendor, intent_id))


if __name__ == "__main__":
    common.per_database(run, "bench")
