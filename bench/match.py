"""Benchmark of proposal ranking (DESIGN.md section 11): run with `make bench`.

Scores 1,000 proposals with matching.ranking (pure), then times POST /v1/match over the same
1,000 through the whole Django stack. It runs on BENCH_DATABASE_URL (a scratch SQLite file under
var/ by default; never DATABASE_URL, so it cannot touch the gateway's data) and removes only the
rows it made. Prints medians and percentiles; asserts nothing.
"""

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DATABASE_URL"] = os.environ.get(
    "BENCH_DATABASE_URL", f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}"
)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gateway.settings")
os.environ["THROTTLE_RATES"] = "off"

import django  # noqa: E402

django.setup()

from decimal import Decimal  # noqa: E402

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402
from django.utils import timezone  # noqa: E402

from catalog.models import Product, Recommendation  # noqa: E402
from gateway.api import INTENT, PROPOSAL, new_id  # noqa: E402
from matching import ranking, services  # noqa: E402
from matching.models import Intent, MatchSession, MatchToken, Proposal  # noqa: E402
from merchants.models import MerchantAgent  # noqa: E402

PROPOSALS = 1_000
RUNS = 200
WARM_UP = 5  # a serving process is warm; its first requests load code, not rank proposals


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def setup() -> str:
    call_command("migrate", verbosity=0)
    # Only what an earlier run of this bench made: its intents are marked, its merchants named.
    bench_intents = Intent.objects.filter(metadata__bench=True)
    Recommendation.objects.filter(intent_id__in=bench_intents.values("intent_id")).delete()
    MatchToken.objects.filter(intent__in=bench_intents).delete()
    MatchSession.objects.filter(intent__in=bench_intents).delete()
    Proposal.objects.filter(intent__in=bench_intents).delete()
    bench_intents.delete()
    MerchantAgent.objects.filter(merchant_id__startswith="bench-").delete()
    # 50 merchants each proposing 20 different products: one live proposal per merchant and
    # product, as the gateway allows.
    products = [
        Product.objects.update_or_create(
            id=900_000_000 + n,
            defaults={
                "title": f"Bench Trail Running Shoe {n}",
                "url": f"https://shop.test/p/{n}",
                "tags": ["trail"],
            },
        )[0]
        for n in range(20)
    ]
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
                product_text=[products[n // len(merchants)].title, "trail"],
            ),
        )
        for n in range(PROPOSALS)
    )
    return intent.intent_id


def main() -> None:
    intent_id = setup()
    intent = Intent.objects.get(intent_id=intent_id)
    now = timezone.now()
    rows = services.candidates_of(intent, now)
    facts = [services.proposal_facts(services.Candidate(*row), n) for n, row in enumerate(rows)]
    assert len(facts) == PROPOSALS

    scoring = []
    for _ in range(RUNS):
        started = time.perf_counter()
        ranking.rank(services.intent_facts(intent), facts, limit=10)
        scoring.append((time.perf_counter() - started) * 1000)

    client = Client(HTTP_HOST="localhost")
    body = {"intent_id": intent_id, "limit": 10}
    for _ in range(WARM_UP):
        client.post("/v1/match", body, content_type="application/json")
    requests = []
    for _ in range(RUNS):
        started = time.perf_counter()
        response = client.post("/v1/match", body, content_type="application/json")
        requests.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 201, response.content

    vendor = django.db.connection.vendor
    print(f"ranking {PROPOSALS} proposals ({vendor}), {RUNS} runs each:")
    print(
        f"  scoring (matching.ranking.rank): median {statistics.median(scoring):.2f} ms, "
        f"p95 {percentile(scoring, 0.95):.2f} ms   (budget: <= 5 ms)"
    )
    print(
        f"  POST /v1/match:                  median {statistics.median(requests):.2f} ms, "
        f"p95 {percentile(requests, 0.95):.2f} ms, p99 {percentile(requests, 0.99):.2f} ms"
        "   (budget: p95 <= 50 ms)"
    )


if __name__ == "__main__":
    main()
