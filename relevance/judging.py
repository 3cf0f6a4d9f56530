"""Judgement rules and the measures of `make relevance`: pure functions, no Django.

A query's rule (relevance/queries.toml) reads a product's title and categories only; a served
list is scored against every product of the catalog the rule accepts within the query's region
and budget (the ideal list).
"""

import html
import math
import re
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

QUERIES = Path(__file__).with_name("queries.toml")


@dataclass(frozen=True)
class Product:
    id: int
    title: str
    categories: frozenset[str]
    price: float | None
    regions: frozenset[str]

    @classmethod
    def from_line(cls, data: dict[str, Any]) -> "Product":
        names = (data.get("category_l1"), data.get("category_l2"))
        price = data.get("price_usd")
        return cls(
            id=int(data["id"]),
            title=html.unescape(html.unescape(str(data.get("title") or ""))),
            categories=frozenset(name for name in names if name),
            price=float(price) if price is not None else None,
            regions=frozenset(data.get("regions") or ()),
        )


@dataclass(frozen=True)
class Query:
    text: str
    keywords: list[str]
    categories: list[str]
    title: list[re.Pattern[str]]
    not_title: list[re.Pattern[str]] = field(default_factory=list)
    excluded: list[re.Pattern[str]] = field(default_factory=list)
    kind: str = "general"
    constraints: list[str] = field(default_factory=list)
    exclude: list[str] | None = None
    category: frozenset[str] | None = None
    region: str = "IN"
    budget_min: float | None = None
    budget_max: float | None = None

    def relevant(self, product: Product) -> bool:
        return (
            all(pattern.search(product.title) for pattern in self.title)
            and not any(pattern.search(product.title) for pattern in self.not_title)
            and not self.rules_out(product)
            and (self.category is None or bool(product.categories & self.category))
        )

    def rules_out(self, product: Product) -> bool:
        """Whether the shopper ruled this product out (an excluded product)."""
        return any(pattern.search(product.title) for pattern in self.excluded)

    def violation(self, product: Product) -> str | None:
        """Why serving `product` breaks the query's region or budget, if it does."""
        if product.regions and self.region not in product.regions:
            return "region"
        if self.budget_min is None and self.budget_max is None:
            return None
        if product.price is None:
            return "budget"
        if self.budget_max is not None and product.price > self.budget_max:
            return "budget"
        if self.budget_min is not None and product.price < self.budget_min:
            return "budget"
        return None

    def resolution(self) -> dict[str, Any]:
        """What the scripted engine answers for this query: the model's part of the labels."""
        answer: dict[str, Any] = {
            "normalized_query": " ".join(self.text.lower().split()),
            "keywords": self.keywords,
            "categories": self.categories,
            "intent_tags": self.keywords,
            "target_audience": None,
            "budget": {"min": self.budget_min, "max": self.budget_max, "currency": "USD"},
            "region": self.region,
            "constraints": self.constraints,
            "summary": self.text,
        }
        if self.exclude is not None:
            answer["exclude"] = self.exclude
        return answer


def load_queries(path: Path = QUERIES) -> list[Query]:
    with path.open("rb") as stream:
        entries = tomllib.load(stream)["query"]

    def patterns(items: Iterable[str]) -> list[re.Pattern[str]]:
        return [re.compile(item, re.IGNORECASE) for item in items]

    return [
        Query(
            text=entry["text"],
            keywords=list(entry["keywords"]),
            categories=list(entry.get("categories", [])),
            title=patterns(entry["title"]),
            not_title=patterns(entry.get("not_title", [])),
            excluded=patterns(entry.get("excluded", [])),
            kind=entry.get("kind", "general"),
            constraints=list(entry.get("constraints", [])),
            exclude=list(entry["exclude"]) if "exclude" in entry else None,
            category=frozenset(entry["category"]) if "category" in entry else None,
            region=entry.get("region", "IN"),
            budget_min=entry.get("budget_min"),
            budget_max=entry.get("budget_max"),
        )
        for entry in entries
    ]


def precision(gains: Sequence[int], k: int, reachable: int) -> float:
    """Relevant products among the first k, over as many as could be relevant (k, or fewer when
    the catalog holds fewer): a query with two relevant products scores 1 when both lead."""
    return sum(gains[:k]) / min(k, reachable)


def ndcg(gains: Sequence[int], ideal_relevant: int, k: int = 10) -> float:
    """nDCG@k of binary gains, against an ideal list of `ideal_relevant` relevant products."""
    dcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(gains[:k]))
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(ideal_relevant, k)))
    return dcg / ideal if ideal else 0.0


def overlap(first: Sequence[int], second: Sequence[int]) -> float:
    """How much two top lists agree: shared products over the longer list (1 when both empty)."""
    longest = max(len(first), len(second))
    return len(set(first) & set(second)) / longest if longest else 1.0


@dataclass
class Served:
    """One query's answer: product ids in order, and the tier of each."""

    ids: list[int]
    tiers: list[str]


@dataclass
class Scores:
    queries: int = 0  # judged: some relevant product exists
    p3: float = 0.0
    p10: float = 0.0
    ndcg10: float = 0.0
    violations: int = 0
    excluded: int = 0  # served products the shopper ruled out
    served: int = 0
    by_tier: dict[str, list[int]] = field(default_factory=dict)  # tier -> [relevant, served]
    by_kind: dict[str, "Scores"] = field(default_factory=dict)

    def tier_precision(self, tier: str) -> float | None:
        relevant, served = self.by_tier.get(tier, [0, 0])
        return relevant / served if served else None


def evaluate(
    queries: Sequence[Query], answers: Sequence[Served], catalog: dict[int, Product]
) -> Scores:
    """Mean P@3, P@10 and nDCG@10 over the queries with a relevant product in reach, overall and
    per kind; per-tier precision, budget or region violations and excluded products over every
    served product."""
    scores = Scores()
    for query, answer in zip(queries, answers, strict=True):
        kind = scores.by_kind.setdefault(query.kind, Scores())
        for part in (scores, kind):
            _add(part, query, answer, catalog)
    for part in (scores, *scores.by_kind.values()):
        if part.queries:
            part.p3 /= part.queries
            part.p10 /= part.queries
            part.ndcg10 /= part.queries
    return scores


def _add(scores: Scores, query: Query, answer: Served, catalog: dict[int, Product]) -> None:
    """One query's answer added to the sums of `scores` (means are taken after)."""
    served = [catalog[product] for product in answer.ids]
    gains = [int(query.relevant(product)) for product in served]
    scores.served += len(served)
    scores.violations += sum(1 for product in served if query.violation(product))
    scores.excluded += sum(1 for product in served if query.rules_out(product))
    for gain, tier in zip(gains, answer.tiers, strict=True):
        counts = scores.by_tier.setdefault(tier, [0, 0])
        counts[0] += gain
        counts[1] += 1
    reachable = sum(
        1 for item in catalog.values() if query.relevant(item) and not query.violation(item)
    )
    if not reachable:
        return
    scores.queries += 1
    scores.p3 += precision(gains, 3, reachable)
    scores.p10 += precision(gains, 10, reachable)
    scores.ndcg10 += ndcg(gains, reachable)
