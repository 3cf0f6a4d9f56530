"""What a part is made of, as the shopper asked and as a title says: "a men's watch with a metal
strap" asked, "Analog Watch with Silicone Strap" states another material for the same part and
is served after the rest (the retrieval set-aside, catalog/aside.py), as another size is
(catalog/measures.py): near, never dropped. A title that names no material for the part, or
names the one asked among others, does not contradict; a member of a family is the family's
("Stainless Steel Strap" is a metal strap: catalog/synonyms.py's FAMILIES).

A material is asked where a keyword writes one right before the thing it makes ("metal strap",
"steel bottle"); a title states one the same way.
"""

from collections.abc import Iterable, Sequence
from itertools import pairwise

from catalog import synonyms, text, types

Made = tuple[str, str]  # a material's stem and the stem of the part it makes


def wanted(keywords: Iterable[str]) -> tuple[Made, ...]:
    """The (material, part) pairs the keywords state, each once."""
    return tuple(dict.fromkeys(made for keyword in keywords for made in _made(keyword)))


def contradicts(asked: Sequence[Made], title: str) -> bool:
    """Whether `title` states, for some part asked, materials of it and none of the one asked
    (or of its family's members)."""
    if not asked:
        return False
    stated = _made(title)
    for material, part in asked:
        of_part = {made for made, thing in stated if thing == part}
        if of_part and not of_part & _kinds_of(material):
            return True
    return False


def _made(phrase: str) -> list[Made]:
    """The (material, part) of each material word standing right before a word that may name
    a thing ("plastic free" makes nothing)."""
    return [
        (text.stem(first), text.stem(second))
        for first, second in pairwise(text.words(phrase))
        if first in types.MATERIALS
        and second not in types.MATERIALS
        and not types.describes_only(second)
    ]


def _kinds_of(material: str) -> frozenset[str]:
    """The material and, for a family's word, its members (metal: steel, brass...)."""
    return synonyms.families().get(material, frozenset()) | {material}
