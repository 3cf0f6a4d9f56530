"""Resolve, what the shopper requires: the materials and colours (catalog/types.py's MATERIALS
and COLOURS) among the keywords' words that the model also wrote in a constraint that rules
nothing out ("leather" of the keywords ["gym belt", "leather"] and the constraint "material:
genuine leather", "white" of "white sneakers" and "colour: white"), and the
measures a constraint states ("65 litre capacity", catalog/measures.py). The partial tier
(catalog/partial.py) serves a product holding more of them before one holding more of the other
words: a leather gym belt before a nylon one that says "gym", "back" and "support", a rucksack
of "65 Ltrs" before one that says "trekking" and "hiking" and no size.
Other stated words ("anti-slip", "for dry skin") weigh as the keywords' other words do: read
first, they cost more products than they found (docs/relevance.md, "Whom it is for, what it is
made of")."""

from collections.abc import Sequence

from catalog import measures, text, types
from matching.engine.resolution import Resolution
from matching.recommend.exclusions import requirement

_MATERIALS = frozenset(map(text.stem, types.MATERIALS))
_COLOURS = frozenset(map(text.stem, types.COLOURS))


def required(resolution: Resolution, keywords: Sequence[str]) -> tuple[str, ...]:
    """The stems of the words of `keywords` that a constraint requires, in order of stem: a
    material of any keyword, a colour of the first (the thing asked: "white" of "white
    sneakers", not "black" of "black sole")."""
    asked = {term for keyword in keywords for term in text.query_terms(keyword)}
    first = set(text.query_terms(keywords[0])) if keywords else set()
    stated = {
        text.stem(word)
        for constraint in resolution.constraints
        for word in text.words(requirement(constraint))
    }
    return tuple(sorted((stated & _MATERIALS & asked) | (stated & _COLOURS & first)))


def required_measures(resolution: Resolution) -> tuple[measures.Measure, ...]:
    """The measures a constraint that rules nothing out states ("weight: 5 kg each")."""
    return measures.wanted(requirement(constraint) for constraint in resolution.constraints)
