"""Judgement rules and the measures of `make relevance`: pure functions, no Django.

A query's rule reads a product's title (HTML entities decoded, in lower case) and categories
only, never the gateway's own analysis; a served list is scored against every product of the
catalog the rule accepts (the ideal list). One rule for every set (relevance/sets.py):

    a product is relevant iff
      - it satisfies at least one clause (a single clause when the rule has no `any`): every
        regex of the clause's title_all matches, none of its title_none matches, and its
        category_l1 or category_l2 is one of the clause's category_any when given;
      - none of the rule's title_none matches, nor a pattern of what the shopper ruled out;
      - its price is within the rule's price_min / price_max (US dollars), when given (no
        price: not relevant).

A served product breaks the query's region when it is not sold there, and its budget when it
is outside the budget the resolution states (a budget in rupees judged at the catalog's
82.5 rupees a dollar, relevance/SOURCE.md), or has no price while a budget was stated.
"""

import html
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Rupees a US dollar, as the catalog's prices were converted (shared/relevance/SOURCE.md).
INR_PER_USD = 82.5


@dataclass(frozen=True)
class Product:
    id: int
    title: str  # HTML-unescaped, lower case
    categories: frozenset[str]
    price: float | None
    regions: frozenset[str]

    @classmethod
    def from_line(cls, data: dict[str, Any]) -> "Product":
        names = (data.get("category_l1"), data.get("category_l2"))
        price = data.get("price_usd")
        return cls(
            id=int(data["id"]),
            title=html.unescape(html.unescape(str(data.get("title") or ""))).lower(),
            categories=frozenset(name for name in names if name),
            price=float(price) if price is not None else None,
            regions=frozenset(data.get("regions") or ()),
        )


def patterns(items: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(item, re.IGNORECASE) for item in items)


@dataclass(frozen=True)
class Clause:
    title_all: tuple[re.Pattern[str], ...] = ()
    title_none: tuple[re.Pattern[str], ...] = ()
    category_any: frozenset[str] | None = None

    @classmethod
    def of(cls, entry: dict[str, Any]) -> "Clause":
        categories = entry.get("category_any")
        return cls(
            title_all=patterns(entry.get("title_all", ())),
            title_none=patterns(entry.get("title_none", ())),
            category_any=frozenset(categories) if categories else None,
        )

    def holds(self, product: Product) -> bool:
        return (
            all(pattern.search(product.title) for pattern in self.title_all)
            and not any(pattern.search(product.title) for pattern in self.title_none)
            and (self.category_any is None or bool(product.categories & self.category_any))
        )


@dataclass(frozen=True)
class Rule:
    clauses: tuple[Clause, ...]
    title_none: tuple[re.Pattern[str], ...] = ()
    price_min: float | None = None
    price_max: float | None = None

    @classmethod
    def of(cls, entry: dict[str, Any]) -> "Rule":
        """A rule as the sets write it (`title_all`, `title_none`, `category_any`, `any`,
        `price_min`, `price_max`)."""
        clauses = entry.get("any") or [entry]
        return cls(
            clauses=tuple(Clause.of(clause) for clause in clauses),
            title_none=patterns(entry.get("title_none", ())) if "any" in entry else (),
            price_min=entry.get("price_min"),
            price_max=entry.get("price_max"),
        )

    def accepts(self, product: Product) -> bool:
        if not any(clause.holds(product) for clause in self.clauses):
            return False
        if any(pattern.search(product.title) for pattern in self.title_none):
            return False
        if self.price_min is None and self.price_max is None:
            return True
        price = product.price
        return (
            price is not None
            and (self.price_min is None or price >= self.price_min)
            and (self.price_max is None or price <= self.price_max)
        )


@dataclass(frozen=True)
class Query:
    set: str
    id: str
    kind: str
    text: str
    resolution: dict[str, Any]  # what the scripted engine answers: the model's part
    rule: Rule
    excluded: tuple[re.Pattern[str], ...] = ()  # what the shopper ruled out
    region: str | None = None  # the request's `region`

    def relevant(self, product: Product) -> bool:
        return self.rule.accepts(product) and not self.rules_out(product)

    def rules_out(self, product: Product) -> bool:
        """Whether the shopper ruled this product out (an excluded product)."""
        return any(pattern.search(product.title) for pattern in self.excluded)

    def budget_usd(self) -> tuple[float | None, float | None]:
        """The budget the resolution states, in US dollars (rupees at the catalog's rate)."""
        budget = self.resolution.get("budget") or {}
        rate = 1 / INR_PER_USD if (budget.get("currency") or "USD").upper() == "INR" else 1.0
        low, high = budget.get("min"), budget.get("max")
        return (
            None if low is None else float(low) * rate,
            None if high is None else float(high) * rate,
        )

    def violation(self, product: Product) -> str | None:
        """Why serving `product` breaks the query's region or budget, if it does."""
        region = self.region or self.resolution.get("region")
        if region and product.regions and region not in product.regions:
            return "region"
        low, high = self.budget_usd()
        if low is None and high is None:
            return None
        price = product.price
        if price is None:
            return "budget"
        # A cent's leeway either way: budgets are judged in dollars, products priced in rupees.
        if (high is not None and price > high + 0.01) or (low is not None and price < low - 0.01):
            return "budget"
        return None


def precision(gains: Sequence[int], k: int) -> float:
    """Relevant products among the first k, over k (as the released sets count it: a query
    whose catalog holds one relevant product scores a third at most in P@3, one that holds none
    scores 0)."""
    return sum(gains[:k]) / k


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
    queries: int = 0  # judged for nDCG: some relevant product exists
    p_queries: int = 0  # judged for P@k: every query but a region's that sells nothing
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
    """Mean P@3, P@10 (over every query but those of a region the catalog does not sell in)
    and nDCG@10 (over those with a relevant product), overall and per kind; per-tier precision,
    budget or region violations and excluded products over every served product."""
    scores = Scores()
    for query, answer in zip(queries, answers, strict=True):
        kind = scores.by_kind.setdefault(query.kind, Scores())
        for part in (scores, kind):
            _add(part, query, answer, catalog)
    for part in (scores, *scores.by_kind.values()):
        if part.p_queries:
            part.p3 /= part.p_queries
            part.p10 /= part.p_queries
        if part.queries:
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
    region = query.region or query.resolution.get("region")
    if region and not any(region in item.regions for item in catalog.values()):
        return  # a region the catalog does not sell in: violations alone count
    scores.p_queries += 1
    scores.p3 += precision(gains, 3)
    scores.p10 += precision(gains, 10)
    reachable = sum(1 for item in catalog.values() if query.relevant(item))
    if reachable:
        scores.queries += 1
        scores.ndcg10 += ndcg(gains, reachable)
