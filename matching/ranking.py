"""Explainable proposal scores: pure functions of an intent and its proposals' inputs.

score = sum(WEIGHTS[c] * component c), each component in [0, 1]:

- relevance     share of the intent's tags found in the product's own catalog text (title, tags,
                brand, categories; words compared as search compares them, catalog/text.py); a
                multi-word tag counts when all its words are there. A merchant's offer_title is
                shown, never scored. 0.5 without tags.
- price_fit     1 inside the budget; below the minimum 0.8; above the maximum it falls linearly
                to 0 at twice the maximum; no price 0.2; no budget 0.5. A budget in another
                currency is judged in dollars at its USD_RATES rate; without a rate, as none.
- availability  in_stock 1, low_stock 0.7, preorder 0.4, unknown 0.3, out_of_stock 0.
- shipping      by promised days: <= 2 -> 1, <= 5 -> 0.8, <= 10 -> 0.5, more 0.2, none stated
                0.3; free shipping adds 0.1 (at most 1).
- reliability   the merchant: active and seen within 24 h 1, active but quiet 0.6, unhealthy
                0.3; the gateway's own catalog 0.8.
- evidence      min(1, evidence items / 3).
- commission    min(1, rate / 0.20); none 0.

Ties break on price (lower first, none last), then submission order, then proposal id: the same
inputs always give the same order.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cached_property
from typing import Any

from django.utils.translation import ngettext

from catalog import text

WEIGHTS: dict[str, float] = {
    "relevance": 0.30,
    "price_fit": 0.20,
    "availability": 0.15,
    "shipping": 0.10,
    "reliability": 0.10,
    "evidence": 0.10,
    "commission": 0.05,
}
AVAILABILITY = {
    "in_stock": 1.0,
    "low_stock": 0.7,
    "preorder": 0.4,
    "unknown": 0.3,
    "out_of_stock": 0.0,
}
INVENTORY_STATUSES = tuple(AVAILABILITY)
RECENTLY_SEEN = timedelta(hours=24)
# The product fields relevance reads, in the order reasons name them.
PRODUCT_FIELDS = ("title", "tags", "brand", "category")


def product_fields(
    *, title: str, tags: Sequence[str], brand: str | None, categories: Sequence[str | None]
) -> dict[str, str]:
    """A catalog product's own text, by field, as score_inputs reads it."""
    return {
        "title": title,
        "tags": " . ".join(tags),
        "brand": brand or "",
        "category": " . ".join(name for name in categories if name),
    }


@dataclass(frozen=True)
class IntentFacts:
    tags: tuple[str, ...]
    budget_min: float | None
    budget_max: float | None

    @cached_property
    def tag_words(self) -> tuple[frozenset[str], ...]:
        """Each tag's terms, read once per ranking rather than once per proposal."""
        return tuple(frozenset(text.query_terms(tag)) for tag in self.tags)


@dataclass(frozen=True)
class ProposalFacts:
    """What a proposal is scored on: its stored score inputs plus the merchant's state."""

    proposal_id: str
    price: float | None
    inventory_status: str
    shipping_days: int | None
    free_shipping: bool
    commission_rate: float | None
    evidence_count: int
    product_terms: frozenset[str]  # every field's terms
    reliability: float
    order: int  # submission order: the last tie-break before the id
    # Each field's terms, space-separated: read only to explain the proposals a ranking returns
    # (one string per field keeps a thousand proposals' inputs cheap to load).
    product_fields: Mapping[str, str] = field(default_factory=dict)


def stored_terms(inputs: Mapping[str, Any]) -> tuple[frozenset[str], Mapping[str, str]]:
    """The product's terms and its fields' terms from stored score inputs. Inputs stored before
    fields were kept hold unstemmed words only: stemmed here, read as one field, "text"."""
    if "product_fields" in inputs:
        return frozenset(inputs.get("product_terms", ())), inputs["product_fields"]
    terms = [text.stem(str(word)) for word in inputs.get("product_terms", ())]
    return frozenset(terms), {"text": " ".join(terms)}


def score_inputs(
    *,
    price: float | None,
    inventory_status: str,
    shipping_commitment: dict[str, Any],
    commission_plan: dict[str, Any],
    evidence: Sequence[Any],
    product_fields: Mapping[str, str],
) -> dict[str, Any]:
    """The proposal_score_inputs stored with a proposal: its facts, read once at submission;
    the product's terms by field and all together (what relevance reads)."""
    fields = {
        name: sorted(set(text.query_terms(value)))
        for name, value in product_fields.items()
        if value
    }
    days = shipping_commitment.get("max_days", shipping_commitment.get("days"))
    rate = commission_plan.get("rate")
    if rate is None and isinstance(commission_plan.get("percent"), int | float):
        rate = commission_plan["percent"] / 100
    return {
        "price": price,
        "inventory_status": inventory_status,
        "shipping_days": days
        if isinstance(days, int) and not isinstance(days, bool) and days >= 0
        else None,
        "free_shipping": shipping_commitment.get("free") is True,
        "commission_rate": float(rate)
        if isinstance(rate, int | float) and not isinstance(rate, bool) and 0 <= rate <= 1
        else None,
        "evidence_count": len(evidence),
        "product_terms": sorted({term for terms in fields.values() for term in terms}),
        "product_fields": {name: " ".join(terms) for name, terms in fields.items()},
    }


def merchant_reliability(*, status: str | None, seen_recently: bool) -> float:
    """`seen_recently`: the merchant registered or sent a heartbeat within RECENTLY_SEEN."""
    if status is None:  # the gateway's own catalog
        return 0.8
    if status == "active":
        return 1.0 if seen_recently else 0.6
    return 0.3


def _matched_tags(intent: IntentFacts, terms: frozenset[str]) -> list[str]:
    return [
        tag
        for tag, tag_words in zip(intent.tags, intent.tag_words, strict=True)
        if tag_words and tag_words <= terms
    ]


def _relevance(intent: IntentFacts, terms: frozenset[str]) -> float:
    if not intent.tags:
        return 0.5
    return sum(1 for tag_words in intent.tag_words if tag_words and tag_words <= terms) / len(
        intent.tags
    )


def _price_fit(intent: IntentFacts, price: float | None) -> float:
    if price is None:
        return 0.2
    if intent.budget_min is None and intent.budget_max is None:
        return 0.5
    if intent.budget_min is not None and price < intent.budget_min:
        return 0.8
    if intent.budget_max is not None and price > intent.budget_max:
        return (
            max(0.0, 1 - (price - intent.budget_max) / intent.budget_max)
            if intent.budget_max
            else 0.0
        )
    return 1.0


def _shipping(days: int | None, free: bool) -> float:
    if days is None:
        base = 0.3
    elif days <= 2:
        base = 1.0
    elif days <= 5:
        base = 0.8
    elif days <= 10:
        base = 0.5
    else:
        base = 0.2
    return min(1.0, base + (0.1 if free else 0.0))


def _where(intent: IntentFacts, facts: ProposalFacts, tag: str) -> str:
    """The product fields holding a matched tag's words: "trail running (title, tags)"."""
    wanted = frozenset(text.query_terms(tag))
    fields = facts.product_fields  # in PRODUCT_FIELDS order: PostgreSQL's jsonb sorts keys
    names = [
        name
        for name in (*PRODUCT_FIELDS, "text")
        if wanted.intersection(fields.get(name, "").split())
    ]
    return f"{tag} ({', '.join(names)})" if names else tag


def _reasons(
    intent: IntentFacts, facts: ProposalFacts, matched: list[str], parts: dict[str, float]
) -> list[str]:
    reasons = []
    if intent.tags:
        found = [_where(intent, facts, tag) for tag in matched]
        tags = ngettext("intent tag", "intent tags", len(intent.tags))
        reasons.append(
            f"matches {len(matched)} of {len(intent.tags)} {tags}"
            + (f": {', '.join(found)}" if found else "")
        )
    if facts.price is not None and intent.budget_max is not None:
        relation = "within" if facts.price <= intent.budget_max else "over"
        reasons.append(f"{relation} budget: {facts.price:.2f} vs max {intent.budget_max:.2f}")
    elif facts.price is None:
        reasons.append("no price given")
    status = facts.inventory_status.replace("_", " ")
    reasons.append("stock not stated" if status == "unknown" else status)
    if facts.shipping_days is not None:
        days = ngettext("day", "days", facts.shipping_days)
        reasons.append(
            f"ships in {facts.shipping_days} {days}" + (", free" if facts.free_shipping else "")
        )
    if facts.evidence_count:
        items = ngettext("evidence item", "evidence items", facts.evidence_count)
        reasons.append(f"{facts.evidence_count} {items}")
    if parts["reliability"] < 0.6:
        reasons.append("merchant is unhealthy")
    return reasons


_NAMES = tuple(WEIGHTS)
_W = tuple(WEIGHTS.values())


def _total(parts: tuple[float, ...]) -> float:
    # Unrolled: this runs once per proposal, a thousand times a match.
    return round(
        _W[0] * parts[0]
        + _W[1] * parts[1]
        + _W[2] * parts[2]
        + _W[3] * parts[3]
        + _W[4] * parts[4]
        + _W[5] * parts[5]
        + _W[6] * parts[6],
        4,
    )


def _components(intent: IntentFacts, facts: ProposalFacts) -> tuple[float, ...]:
    """The seven components, in the order of WEIGHTS."""
    return (
        _relevance(intent, facts.product_terms),
        _price_fit(intent, facts.price),
        AVAILABILITY.get(facts.inventory_status, 0.3),
        _shipping(facts.shipping_days, facts.free_shipping),
        facts.reliability,
        min(1.0, facts.evidence_count / 3),
        min(1.0, facts.commission_rate / 0.20) if facts.commission_rate else 0.0,
    )


def _explained(
    intent: IntentFacts, facts: ProposalFacts, parts: tuple[float, ...]
) -> dict[str, Any]:
    components = dict(zip(_NAMES, parts, strict=True))
    matched = _matched_tags(intent, facts.product_terms)
    return {
        "proposal_id": facts.proposal_id,
        "score": _total(parts),
        "components": {name: round(value, 4) for name, value in components.items()},
        "reasons": _reasons(intent, facts, matched, components),
    }


def score(intent: IntentFacts, facts: ProposalFacts) -> dict[str, Any]:
    """Score one proposal: its components, weighted total (0-1) and reasons."""
    return _explained(intent, facts, _components(intent, facts))


def rank(
    intent: IntentFacts, proposals: Iterable[ProposalFacts], limit: int | None = None
) -> list[dict[str, Any]]:
    """Proposals ordered best first with their 1-based `rank`; the first `limit` (all when None)
    explained with components and reasons. Only those are explained: ranking 1,000 proposals
    must stay within a few milliseconds."""
    scored = []
    for item in proposals:
        parts = _components(intent, item)
        scored.append(
            (
                -_total(parts),
                item.price is None,
                item.price or 0.0,
                item.order,
                item.proposal_id,
                item,
                parts,
            )
        )
    scored.sort(key=lambda entry: entry[:5])
    top = scored if limit is None else scored[:limit]
    return [
        {"rank": position, **_explained(intent, entry[5], entry[6])}
        for position, entry in enumerate(top, start=1)
    ]
