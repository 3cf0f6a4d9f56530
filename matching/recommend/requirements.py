"""Resolve, what the shopper requires: the materials and colours (catalog/types.py's MATERIALS
and COLOURS) among the keywords' words that the model also wrote in a constraint that rules
nothing out ("leather" of the keywords ["gym belt", "leather"] and the constraint "material:
genuine leather", "white" of "white sneakers" and "colour: white"), and the
measures a constraint states ("65 litre capacity", catalog/measures.py). The partial tier
(catalog/partial.py) serves a product holding more of them before one holding more of the other
words, and before one of the wanted type (a title's type can be misread, a constraint cannot):
a leather gym belt before a nylon one that says "gym", "back" and "support", a rucksack of "65
Ltrs" before one that says "trekking" and "hiking" and no size.
What a constraint says the product comes with ("includes: carry bag or strap", "with 2 pillow
covers", "with remote") is required too, where a keyword names it: the thing's last word ("bag",
"strap", "cover"), each of its alternatives. What it works with ("compatible with iPhone", "works
with bicycle tyres") is no part of it.
Other stated words ("anti-slip", "for dry skin") weigh as the keywords' other words do: read
first, they cost more products than they found (docs/relevance.md, "Whom it is for, what it is
made of")."""

import re
from collections.abc import Sequence

from catalog import measures, text, types
from matching.engine.resolution import Resolution
from matching.recommend.exclusions import alternatives, requirement

# "with X", "includes: X", "comes with X"; not "compatible with X", "works with X".
_COMES_WITH = re.compile(
    r"(?<!compatible )(?<!works )(?<!fits )(?<!goes )(?<!pairs )(?<!used )"
    r"\b(?:with|includes?|including|comes with)\b:?\s*(?P<what>.+)",
    re.IGNORECASE,
)

_MATERIALS = frozenset(map(text.stem, types.MATERIALS))
_COLOURS = frozenset(map(text.stem, types.COLOURS))


def required(resolution: Resolution, keywords: Sequence[str]) -> tuple[str, ...]:
    """The stems of the words of `keywords` that a constraint requires, in order of stem: a
    material of any keyword, a colour of the first (the thing asked: "white" of "white
    sneakers", not "black" of "black sole"), what the product comes with."""
    asked = {term for keyword in keywords for term in text.query_terms(keyword)}
    first = set(text.query_terms(keywords[0])) if keywords else set()
    stated = {
        text.stem(word)
        for constraint in resolution.constraints
        for word in text.words(requirement(constraint))
    }
    parts = _parts(resolution.constraints) & asked
    return tuple(sorted((stated & _MATERIALS & asked) | (stated & _COLOURS & first) | parts))


def _parts(constraints: Sequence[str]) -> set[str]:
    """The stems of what the constraints say the product comes with: each thing's last word."""
    found: set[str] = set()
    for constraint in constraints:
        if comes := _COMES_WITH.search(requirement(constraint)):
            for thing in alternatives(comes["what"]):
                if named := [word for word in text.words(thing) if word.isalpha()]:
                    found.add(text.stem(named[-1]))
    return found


def required_measures(resolution: Resolution) -> tuple[measures.Measure, ...]:
    """The measures a constraint that rules nothing out states ("weight: 5 kg each")."""
    return measures.wanted(requirement(constraint) for constraint in resolution.constraints)
