"""Rank: the two orders of a recommend answer, over the same offers.

- **The cards' order** is retrieval's (catalog/search.py: tier by tier, then inside the resolved
  categories first, the product before accessories of it, the database's relevance score,
  creator sales). It is the order the shopper sees: the answer's `items`, its catalog
  `proposals` and the shopper guide follow it. Change it in catalog/search.py and
  catalog/fulltext.py (docs/development.md, "Change the ranking").
- **The session's order** ranks the offers as proposals by proposal score (matching/ranking.py:
  weighted price, inventory, shipping, commission, evidence and relevance to the intent, each
  explained): the match session's `ranked_proposals`, which a demand agent reads to accept one,
  as it does for merchants' proposals.
"""

from dataclasses import replace
from typing import Any

import orjson

from catalog.cards import sales_stats
from kernel.ids import PROPOSAL, new_id
from matching import ranking
from matching.models import Intent
from matching.recommend.offer import Offer
from matching.services import Candidate, session_ranking


def _evidence(offer: Offer) -> list[dict[str, Any]]:
    stats = sales_stats(list(offer.product.videos.all()))
    if not stats.videos:
        return []
    return [
        {
            "type": "creator_sales",
            "videos": stats.videos,
            "orders": stats.orders,
            "gmv_usd": round(stats.gmv_usd, 2),
            "views": stats.views,
        }
    ]


def scored(offers: list[Offer]) -> list[Offer]:
    """Each offer with a proposal id, its creators' sales as evidence, and its score inputs."""
    found = []
    for offer in offers:
        product, evidence = offer.product, _evidence(offer)
        inputs = ranking.score_inputs(
            price=float(product.price_usd) if product.price_usd is not None else None,
            inventory_status="unknown",
            shipping_commitment={},
            commission_plan={},
            evidence=evidence,
            product_fields=ranking.product_fields(
                title=product.title,
                tags=product.tags,
                brand=product.brand,
                categories=[product.category_l1, product.category_l2],
            ),
        )
        found.append(
            replace(offer, proposal_id=new_id(PROPOSAL), evidence=evidence, score_inputs=inputs)
        )
    return found


def session_order(
    intent: Intent, offers: list[Offer], limit: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The session's ranking of the offers (best first, at most `limit`) and its summary."""
    candidates = [
        Candidate.catalog_offer(
            offer.proposal_id, offer.product.pk, orjson.dumps(offer.score_inputs).decode()
        )
        for offer in offers
    ]
    return session_ranking(intent, candidates, max(limit, 1))
