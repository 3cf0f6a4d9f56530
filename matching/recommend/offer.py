"""The value the stages pass along: one product on its way to becoming a card and a proposal."""

from dataclasses import dataclass, field
from typing import Any

from catalog.models import Product


@dataclass(frozen=True)
class Offer:
    """A retrieved product (with the tier that found it), then its proposal id, evidence and the
    inputs of its proposal score (rank), then its card (compose)."""

    product: Product
    tier: str
    proposal_id: str = ""
    evidence: list[dict[str, Any]] = field(default_factory=list)
    score_inputs: dict[str, Any] = field(default_factory=dict)
    card: dict[str, Any] = field(default_factory=dict)
