"""What a part is made of, as the shopper asked and as a title says: "a men's watch with a metal
strap" asked, "Analog Watch with Silicone Strap" states another material for the same part and
is served after the rest (the retrieval set-aside, catalog/aside.py), as another size is
(catalog/measures.py): near, never dropped. A title that names no material for the part, or
names the one asked among others, does not contradict; a member of a family is the family's
("Stainless Steel Strap" is a metal strap: catalog/synonyms.py's FAMILIES).

A material is asked where a keyword writes one right before the thing it makes ("metal strap",
"steel bottle"); a title states one the same way.

A material asked genuine ("genuine leather", "real leather", "pure silk") is not its imitation:
a title that names the material imitated ("Synthetic Leather", "Faux Leather", "PU Leather",
"Leatherette") and not genuine is set aside the same way, whatever part it makes.
"""

import re
from collections.abc import Iterable, Sequence
from itertools import pairwise

from catalog import synonyms, text, types

Made = tuple[str, str]  # a material's stem and the stem of the part it makes

_GENUINE = r"genuine|real|pure|original|natural|authentic"
_IMITATION = r"synthetic|faux|artificial|imitation|vegan|pu|fake"
# A word that says a material is the true one or an imitation of it, right before it.
_SAID = re.compile(rf"\b({_GENUINE}|{_IMITATION})\s+([^\W\d_]+)", re.IGNORECASE)
_TRUE = re.compile(_GENUINE, re.IGNORECASE)
# Imitations written as one word, as the material they imitate.
_IMITATION_WORDS = {"leatherette": "leather", "rexine": "leather"}


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


def asked_genuine(phrases: Iterable[str]) -> tuple[str, ...]:
    """The materials the phrases ask for genuine ("genuine leather": leather), as stems."""
    found = {
        text.stem(material.lower())
        for phrase in phrases
        for said, material in _SAID.findall(phrase)
        if _TRUE.fullmatch(said) and material.lower() in types.MATERIALS
    }
    return tuple(sorted(found))


def imitates(genuine: Sequence[str], title: str) -> bool:
    """Whether `title` names an imitation of a material asked genuine and never the genuine
    one ("Synthetic Leather Formal Shoes" for genuine leather)."""
    if not genuine:
        return False
    imitated: set[str] = set()
    true: set[str] = set()
    for said, material in _SAID.findall(title):
        stem = text.stem(material.lower())
        (true if _TRUE.fullmatch(said) else imitated).add(stem)
    imitated |= {
        text.stem(material)
        for word, material in _IMITATION_WORDS.items()
        if re.search(rf"\b{word}\b", title, re.IGNORECASE)
    }
    return any(material in imitated and material not in true for material in genuine)
