"""Resolve, what the shopper rules out: the engine's `exclude` list, and each of its
`constraints` that is an exclusion ("exclude plastic lunch boxes", "not wireless", "no sugar",
"without a lid", "anything but single door"). A constraint that is not one ("waterproof",
"non-stick", "sugar free") rules nothing out.

An excluded phrase is read without the words that name what the shopper asked for ("plastic
lunch boxes" in a search for lunch boxes rules out plastic, not lunch boxes) and without words
that name no property ("brand", "products"); what is left of it is never served
(catalog/search.py: in every tier, the trending fill and later pages alike).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from catalog import text
from matching.engine.resolution import Resolution

_NEGATION = re.compile(
    r"^\s*(?:please\s+)?(?:exclude[sd]?|excluding|no|not|never|without|except|avoid(?:ing)?"
    r"|anything\s+but|but\s+not|nothing|none\s+of)\s+(?:any\s+|the\s+|a\s+|an\s+)?(?P<what>.+)$",
    re.IGNORECASE,
)
# Words of an excluded phrase that name no property of a product.
_EMPTY = frozenset(
    text.stem(word)
    for word in (
        "brand", "brands", "product", "products", "item", "items", "kind", "kinds", "type",
        "types", "one", "ones", "made", "model", "models", "please", "anything", "thing",
        "things", "stuff", "any",
    )
)  # fmt: skip
MAX_PHRASES = 8


@dataclass(frozen=True)
class Excluded:
    """One thing ruled out: as the shopper's model wrote it, and the stems search rules out."""

    words: str
    terms: tuple[str, ...]


def _phrases(resolution: Resolution) -> list[str]:
    found = list(resolution.exclude)
    for constraint in resolution.constraints:
        matched = _NEGATION.match(constraint)
        if matched:
            found.append(matched.group("what").strip(" .,;!"))
    return found


def ruled_out(resolution: Resolution) -> list[Excluded]:
    """What the shopper rules out, at most MAX_PHRASES, each once."""
    asked = {
        term
        for named in (*resolution.keywords, *resolution.categories)
        for term in text.query_terms(named)
    }
    kept: dict[tuple[str, ...], Excluded] = {}
    for phrase in _phrases(resolution):
        terms = tuple(term for term in text.query_terms(phrase) if term not in _EMPTY)
        # What the shopper asked for is not ruled out: its words are dropped from the phrase's
        # end ("plastic lunch boxes" is "plastic"), and a phrase of nothing else is no exclusion.
        while terms and terms[-1] in asked:
            terms = terms[:-1]
        if terms and terms not in kept:
            words = " ".join(word for word in text.words(phrase) if text.stem(word) in terms)
            kept[terms] = Excluded(words, terms)
    return list(kept.values())[:MAX_PHRASES]


def stems(excluded: Sequence[Excluded]) -> tuple[tuple[str, ...], ...]:
    return tuple(item.terms for item in excluded)
