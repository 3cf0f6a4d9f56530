"""Resolve, what the shopper rules out: the engine's `exclude` list, and each of its
`constraints` that is an exclusion ("exclude plastic lunch boxes", "not wireless", "no sugar",
"without a lid", "anything but single door", "full size, not gorilla", "material other than
plastic", "don't want a wired one"). A constraint that is not one ("waterproof", "non-stick",
"sugar free", a thing's name beginning with "no": "no show socks") rules nothing out.

An exclusion may name several things, as alternatives: "not a brush or comb", "no cat-eye /
butterfly frames", "exclude gorilla, flexible or mini tripods", "neither wired nor bluetooth".
Each is ruled out on its own (a title holding "comb" is out, whether or not it holds "brush");
where the alternatives are single words before a last one of several ("cat-eye or butterfly
frames"), the last one's other words are the thing they all describe, and each rules out its
own word.

A model may also write what is ruled out into a keyword ("diaper pants excluding huggies",
"men's running shoes other than campus", "not leather"): such a tail is no word wanted but a
thing ruled out, and is read as the `exclude` list is (set_apart). Only the words that rule out
beyond doubt start one there ("excluding", "except", "not", "other than"...): "no" and
"without" in a keyword name what the product is without, as titles do ("no drilling").

A title that names an excluded word as what the product is without ("Non Padded", "Sugar
Free", "Without Lid") does not hold it: "not padded" rules out "Lightly Padded" and serves "Non
Padded" (catalog/text.py, held_plainly).

An excluded phrase is read without the words that name what the shopper asked for ("plastic
lunch boxes" in a search for lunch boxes rules out plastic, not lunch boxes) and without words
that name no property ("brand", "products"); what is left of it is never served
(catalog/search.py: in every tier, the trending fill and later pages alike), nor is the same
thing under its other names (catalog/synonyms.py: "no trainers" rules out sneakers, "not the
stroller kind" pram nets), nor what a title calls made of it or from it ("no wood": "Wooden";
"not kashmir willow": "Kashmiri Willow").
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from catalog import fulltext, synonyms, text
from matching.engine.resolution import MAX_EXCLUDED, MAX_PHRASE_CHARS, Resolution, clean

# The endings that make a thing's name say what something is made of or where it is from
# ("wooden", "golden", "kashmiri"), after a name of this many letters or more ("bra" is no
# "bran").
MADE_OF = ("en", "i", "an")
SHORTEST_MADE_OF = 4

# Words that rule out what follows them, beside what is wanted too ("bento rather than plastic").
_INSTEAD = r"other\s+than|rather\s+than|instead\s+of|apart\s+from"
# Words that rule out what follows them: "exclude", "no", "other than", "don't want"...
_RULING_OUT = (
    r"exclude[sd]?|excluding|no|not|never|without|except|avoid(?:ing)?|anything\s+but"
    rf"|but\s+not|nothing|none\s+of|neither|{_INSTEAD}"
    r"|do(?:n'?t|\s+not)\s+(?:want|need|like)|(?:should|must)(?:n'?t|\s+not)\s+be"
)
# A constraint's label is read past ("colour: not white").
_NEGATION = re.compile(
    rf"^\s*(?:[a-z][a-z ]{{0,19}}:\s*)?(?:please\s+)?(?:{_RULING_OUT})\s+"
    r"(?:any\s+|the\s+|a\s+|an\s+)?(?P<what>.+)$",
    re.IGNORECASE,
)
# An exclusion after what the shopper wants, in the same constraint: "full size, not gorilla",
# "metal strap but not leather", "material other than plastic / glass".
_LATER = re.compile(
    r"(?:(?:[,;]\s*|\s+but\s+)(?:not|no|without|except|excluding|never)"
    rf"|\s+(?:{_INSTEAD}))\s+"
    r"(?:any\s+|the\s+|a\s+|an\s+)?(?P<what>.+)$",
    re.IGNORECASE,
)
# Inside a keyword, the words that rule out what follows them beyond doubt.
_IN_KEYWORD = re.compile(
    rf"(?:^|[\s,;]+)(?P<word>exclud(?:e|es|ed|ing)|except|not|but\s+not|anything\s+but"
    rf"|{_INSTEAD})\s+(?:any\s+|the\s+|a\s+|an\s+)?(?P<what>\S.*)$",
    re.IGNORECASE,
)
# What follows them there that is a bound, not a thing: "not more than 500 ml", "not over 1000".
_BOUND = re.compile(r"^(?:\d|(?:more|less|over|under|above|below|fewer)\b)", re.IGNORECASE)
# Between alternatives: "brush or comb", "cat-eye / butterfly", "gorilla, flexible or mini",
# "wired nor bluetooth"; a repeated negation ("or no-show") or article is part of the joint.
_ALTERNATIVES = re.compile(
    r"\s*(?:,|/|\||;|\bor\b|\bnor\b)\s*(?:(?:no|not|any|a|an|the)\s+)?", re.IGNORECASE
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
    other_names: tuple[tuple[str, ...], ...] = ()  # the same thing in other words
    # The phrase as ruled out, with the asked thing it named ("sports shoes" where the shopper
    # asked for shoes): what a category's name is compared with (catalog/categories.py).
    whole: tuple[str, ...] = ()


def set_apart(resolution: Resolution) -> Resolution:
    """The resolution with what its keywords rule out set apart: a keyword's tail that rules
    out ("excluding huggies" of "diaper pants excluding huggies") joins the `exclude` list and
    leaves the keyword its head; a keyword of nothing else ("not leather") is left out, and
    where none is left the normalized query's head stands for them (when it has none either,
    the resolution stays as the engine wrote it)."""
    kept: list[str] = []
    ruled: list[str] = []
    for keyword in resolution.keywords:
        head, tails = ruled_out_of(keyword)
        ruled += tails
        if text.words(head):
            kept.append(head)
    if not ruled:
        return resolution
    if not kept:
        head, _ = ruled_out_of(resolution.normalized_query)
        if not text.words(head):
            return resolution
        kept = [clean(head, MAX_PHRASE_CHARS)]
    exclude = list(dict.fromkeys([*resolution.exclude, *ruled]))[:MAX_EXCLUDED]
    return replace(resolution, keywords=list(dict.fromkeys(kept)), exclude=exclude)


def ruled_out_of(keyword: str) -> tuple[str, list[str]]:
    """A keyword's head and what its tail rules out, each thing on its own ("nike but not
    adidas": nike, adidas); the keyword whole and nothing where it rules nothing out: a
    thing's name ("forget me not", "do not disturb": "not" beside the word before it as titles
    write them; "no show socks"), or a bound ("not more than 500 ml")."""
    found = _IN_KEYWORD.search(keyword)
    if found is None or synonyms.is_name(keyword) or _named_with_not(keyword, found):
        return keyword, []
    tails: list[str] = []
    what = found["what"]
    while later := _IN_KEYWORD.search(what):
        tails.append(what[: later.start()])
        what = later["what"]
    tails.append(what)
    tails = [tail.strip(" .,;!") for tail in tails]
    if any(_BOUND.match(tail) for tail in tails):
        return keyword, []
    things = [tail for tail in tails if set(text.query_terms(tail)) - text.STOP_WORDS]
    return keyword[: found.start()].strip(" ,;"), things


def _named_with_not(keyword: str, found: re.Match[str]) -> bool:
    """Whether a bare "not" stands where titles write it beside the word before it, as part of
    a name ("Forget Me Not Seeds", "Do Not Disturb Sign")."""
    before = text.words(keyword[: found.start()])
    if found["word"].lower() != "not" or not before:
        return False
    return fulltext.documents_with((text.stem(before[-1]), "not"), 1) > 0


def _phrases(resolution: Resolution) -> list[str]:
    found = [part for item in resolution.exclude for part in alternatives(item)]
    for constraint in resolution.constraints:
        if synonyms.is_name(constraint):
            continue  # a thing's name that begins with "no" ("no show socks") rules nothing out
        matched = _NEGATION.match(constraint) or _LATER.search(constraint)
        if matched:
            found += alternatives(matched.group("what"))
    return found


def requirement(constraint: str) -> str:
    """What a constraint requires: all of it, the part before an exclusion after it ("full size"
    of "full size, not gorilla"), nothing when it is an exclusion."""
    if synonyms.is_name(constraint):
        return constraint
    if _NEGATION.match(constraint):
        return ""
    later = _LATER.search(constraint)
    return constraint[: later.start()] if later else constraint


def alternatives(what: str) -> list[str]:
    """The things a phrase of alternatives names, each on its own ("X or Y", "X/Y", "X, Y or
    Z"): what an exclusion rules out, what a product comes with
    (matching/recommend/requirements.py)."""
    parts = [part.strip(" .,;!") for part in _ALTERNATIVES.split(what)]
    parts = [part for part in parts if text.words(part)]
    if len(parts) > 1:
        *first, last = parts
        if all(len(part.split()) == 1 for part in first) and len(last.split()) > 1:
            # "cat-eye or butterfly frames": frames of either kind; each rules out its word.
            last = last.split()[0]
        parts = [*first, last]
    return parts


def ruled_out(resolution: Resolution) -> list[Excluded]:
    """What the shopper rules out, at most MAX_PHRASES, each once."""
    # What the shopper asked for, but a word asked as what it is without: "padded" of a
    # keyword "non-padded bra" is no thing asked for, and "not padded" rules it out.
    asked = {
        term
        for terms in map(text.query_terms, (*resolution.keywords, *resolution.categories))
        for at, term in enumerate(terms)
        if not text.negated(terms, at)
    }
    kept: dict[tuple[str, ...], Excluded] = {}
    for phrase in _phrases(resolution):
        whole = tuple(term for term in text.query_terms(phrase) if term not in _EMPTY)
        # What the shopper asked for is not ruled out: its words are dropped from the phrase's
        # end ("plastic lunch boxes" is "plastic"), and a phrase of nothing else is no exclusion.
        terms = whole
        while terms and terms[-1] in asked:
            terms = terms[:-1]
        if terms and terms not in kept:
            words = " ".join(word for word in text.words(phrase) if text.stem(word) in terms)
            other = (
                *_other_names(terms, asked, whole[len(terms) :]),
                *_made_of(words, terms, asked),
            )
            kept[terms] = Excluded(words, terms, other, whole)
            if len(terms) == 2:  # "cat-eye" is written "cateye" too
                joined = "".join(words.split())
                kept.setdefault((text.stem(joined),), Excluded(joined, (text.stem(joined),)))
    return list(kept.values())[:MAX_PHRASES]


def _other_names(
    terms: tuple[str, ...], asked: set[str], thing: tuple[str, ...] = ()
) -> tuple[tuple[str, ...], ...]:
    """The excluded thing's other names, but never what the shopper asked for; where the
    phrase named the asked `thing` after them ("ankle socks" in a search for socks), the
    other names of the whole phrase without it too ("low cut" of "low cut socks")."""
    named = [tuple(name) for name in synonyms.other_words(terms)]
    if thing:
        for words in synonyms.other_words([*terms, *thing]):
            name = tuple(words)
            if len(name) > len(thing) and name[-len(thing) :] == thing:
                named.append(name[: -len(thing)])
    return tuple(dict.fromkeys(name for name in named if not set(name) <= asked))


def _made_of(words: str, terms: tuple[str, ...], asked: set[str]) -> tuple[tuple[str, ...], ...]:
    """The excluded thing as titles say it where they say what something is made of or where
    it is from, its first word with an ending ("wooden" of "wood", "kashmiri willow" of
    "kashmir willow"), as stems: ruled out with it; never a word the shopper asked for."""
    first = text.words(words)[:1]
    if not first or not first[0].isalpha() or len(first[0]) < SHORTEST_MADE_OF:
        return ()
    made = (text.stem(first[0] + ending) for ending in MADE_OF)
    return tuple((stem, *terms[1:]) for stem in dict.fromkeys(made) if stem not in (*terms, *asked))


def stems(excluded: Sequence[Excluded]) -> tuple[tuple[str, ...], ...]:
    """What search rules out: each excluded thing's stems, and its other names'."""
    return tuple(names for item in excluded for names in (item.terms, *item.other_names))
