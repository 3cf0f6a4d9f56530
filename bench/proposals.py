"""An intent with 1,000 live proposals, what the ranking and match scenarios measure.

50 merchants each propose 20 products of the catalog (one live proposal per merchant and
product, as the gateway allows), with prices, inventory, shipping, commission and evidence
varied so that every score input takes several values. Only what an earlier run made is
removed first: its intents are marked (`metadata.bench`), its merchants named bench-*.
"""

from decimal import Decimal

PROPOSALS = 1_000


def intent_with_proposals() -> str:
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
