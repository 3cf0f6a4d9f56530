"""What retrieval found: each product with the tier that found it (catalog/search.py's TIERS),
and what the answer says of them (the tier reached, the trending fill)."""

from dataclasses import dataclass

from kernel.tracing import Attributes

TIERS = ("raw_substring", "strict", "narrow", "fuzzy", "partial", "semantic", "broadened")
TRENDING = "trending"
# The products a tier reads back from the database at most, before its exact checks and order.
CANDIDATES = 200
# The fields the fuzzy and partial tiers search: never category names.
NOT_CATEGORY = ("title", "tags", "brand", "description")


@dataclass(frozen=True)
class Hit:
    product_id: int
    tier: str  # one of TIERS, or TRENDING


@dataclass(frozen=True)
class Retrieval:
    hits: list[Hit]

    @property
    def intent_hits(self) -> int:
        return sum(hit.tier != TRENDING for hit in self.hits)

    @property
    def trending_fill(self) -> int:
        return sum(hit.tier == TRENDING for hit in self.hits)

    @property
    def match_tier(self) -> str:
        """The loosest tier that contributed a product; `none` when no tier did."""
        used = {hit.tier for hit in self.hits}
        return next((tier for tier in reversed(TIERS) if tier in used), "none")

    @property
    def note(self) -> str | None:
        if self.trending_fill and self.intent_hits:
            return "intent_plus_trending"
        if self.trending_fill:
            return "trending_suggested"
        return None

    def attributes(self) -> Attributes:
        """What the retrieval's span says of it: the tier reached, the hits."""
        return {
            "gateway.retrieval.match_tier": self.match_tier,
            "gateway.retrieval.hits": len(self.hits),
            "gateway.retrieval.trending_fill": self.trending_fill,
        }
