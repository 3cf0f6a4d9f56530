"""Product text: how it is cleaned at import and how it is read by search and ranking.

One analyzer serves every reader of product text (the search documents of catalog/documents.py,
the checks and order of catalog/search.py, the shopper guide, proposal relevance), on every
database, so a word means the same thing everywhere:

- clean(): what import stores. HTML entities decoded, control, zero-width and replacement
  characters removed, whitespace collapsed.
- terms(): the words of a text as search compares them. Lower case, split on anything that is
  not a letter or a digit, and between letters and digits (so "5-in-1" is 5, in, 1, "64GB" is
  64, gb, and "Women's" is one word, women), each
  stemmed by the Snowball English stemmer: "shoes" and "shoe", "running" and "run" meet, "men"
  and "women" do not; a British spelling is read as the American one ("theatre" and "theater"
  meet, catalog/variants.py), and a plural the stemmer cannot bring back as its singular
  ("shelves" and "shelf" meet, catalog/plurals.py).
- A keyword of several words is a phrase: its words must stand near each other (within
  PHRASE_SLACK other words, in either order) in one field of the product.
"""

import html
import re
import unicodedata
from collections.abc import Sequence

import snowballstemmer

from catalog import plurals, variants

# Words that carry no meaning for retrieval: never searched, never counted.
STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it"}
    | {"of", "on", "or", "s", "the", "to", "with"}
)
# How many other words may stand between the words of a phrase keyword.
PHRASE_SLACK = 1
# Things sold for a product rather than the product itself: a title where one of these follows
# the product's name ("Yoga Mat Bag", "Cricket Bat Grip") or precedes "for" and the name
# ("Stand for Guitar") offers an accessory of what the shopper named.
ACCESSORIES = frozenset(
    {"adapter", "bag", "bell", "cable", "capo", "case", "charger", "cover", "grip", "gripper"}
    | {"hanger", "horn", "saddle"}
    | {"holder", "mount", "organizer", "organiser", "pick", "pouch", "protector", "refill"}
    | {"replacement", "skin", "sleeve", "spare", "stand", "sticker", "strap", "string"}
    | {"tray", "winder"}
)

# A word: letters, or digits; "64GB" and "55inch" are two words each, as "64 GB" and "55 inch".
_WORD = re.compile(r"[^\W\d_]+|\d+")
_APOSTROPHES = re.compile(r"(?<=\w)['\u2019](?=\w)")
_SPACES = re.compile(r"\s+")
# Left out of stored text: U+FFFD (a character lost before the catalog reached us) and the
# invisible format characters (zero-width spaces and joiners, byte-order marks, bidi marks).
_INVISIBLE = {"Cc", "Cf", "Cs", "Co"}
# In ASCII text the only invisible characters are the control characters (category Cc); those
# that are spaces (tab, newline and the like) become one space below, with the other spaces.
_ASCII_INVISIBLE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")

_stemmer = snowballstemmer.stemmer("english")


def clean(text: str) -> str:
    """Text as a product should store it: readable, no markup, no invisible characters."""
    decoded = text
    for _ in range(2):  # "&amp;#39;" was encoded twice: decode until it stops changing
        once = html.unescape(decoded)
        if once == decoded:
            break
        decoded = once
    # Most text is ASCII: one pass of a regular expression instead of a category per character.
    kept = _ASCII_INVISIBLE.sub("", decoded) if decoded.isascii() else _visible(decoded)
    return _SPACES.sub(" ", kept).strip()


def _visible(text: str) -> str:
    """`text` without invisible characters, its whitespace control characters as spaces."""
    return "".join(
        " " if char in "\t\n\r\x0b\x0c" else char
        for char in text
        if char in "\t\n\r\x0b\x0c"
        or (char != "\ufffd" and unicodedata.category(char) not in _INVISIBLE)
    )


# Every word's stem, once per process: a catalog has tens of thousands of distinct words (a web
# process keeps at most STEMS_KEPT of them, however large the catalog).
_stems: dict[str, str] = {}
STEMS_KEPT = 100_000


def stem(word: str) -> str:
    """The stem of one lower-case word, a British spelling read as the American one
    (catalog/variants.py: "theatre" and "theater" meet), a plural the stemmer cannot bring
    back as its singular (catalog/plurals.py: "shelves" and "shelf" meet)."""
    found = _stems.get(word)
    if found is None:
        found = str(_stemmer.stemWord(plurals.singular(variants.american(word))))
        if len(_stems) < STEMS_KEPT:
            _stems[word] = found
    return found


ACCESSORY_TERMS = frozenset(stem(word) for word in ACCESSORIES)
# Words that say who a product is for, never what it is: "men" of ["trousers", "men"] names no
# product (the partial tier, catalog/partial.py, never takes one for a product's name).
AUDIENCE = frozenset(
    {"men", "mens", "man", "women", "womens", "woman", "ladies", "gents", "boys", "boy"}
    | {"girls", "girl", "kids", "kid", "children", "child", "baby", "babies", "unisex", "adults"}
)
AUDIENCE_TERMS = frozenset(stem(word) for word in AUDIENCE)
# Shopping words that do say something: the shopper wants it cheap ("cheap wireless headphones",
# "a budget smartwatch"), though they named no figure (and no title is the cheaper for them).
CHEAP = frozenset(
    {"cheap", "cheaper", "cheapest", "affordable", "inexpensive", "economical", "budget"}
)
# Words of shopping that name no product and no property of one: a model restating "buy tshirt
# online" or "doormat for home best quality" may keep them as keywords, and no title that holds
# "best" or "online" is the better for it. ("new" and "top" stay: New Balance, a crop top.)
SHOPPING = frozenset(
    CHEAP
    | {"buy", "buying", "online", "best", "good", "quality", "deal", "deals"}
    | {"offer", "offers", "sale", "discount", "discounted", "price", "prices", "latest"}
    | {"branded", "genuine", "shop", "shopping", "purchase"}
    | {"bestseller", "popular", "recommended"}
    # Praise: every title claims it ("stylish", "premium", "comfortable"), none is the better
    # for it, and beside a misspelt word it would be all a search could read.
    | {"stylish", "trendy", "fashionable", "classy", "premium", "nice", "beautiful", "perfect"}
    | {"awesome", "amazing", "excellent", "superb", "comfortable", "comfy"}
    # What others made of it: "top rated", "best selling", "most reviewed".
    | {"rated", "rating", "ratings", "reviewed", "reviews", "selling", "seller", "sellers"}
    | {"bestselling", "trusted", "recommend"}
)
# Words that say how much of a word of shopping they stand before ("top rated", "highly rated",
# "most popular"): left out with it, kept anywhere else ("crop top").
_SHOPPING_DEGREE = frozenset({"top", "highly", "most", "very", "really", "super", "much"})
# And words that go with a word of shopping they stand before, and are things elsewhere: "hot
# deals", "hot selling" (a hot water bag).
_BEFORE_SHOPPING = _SHOPPING_DEGREE | {"hot"}


def asks_cheap(phrases: Sequence[str]) -> bool:
    """Whether the phrases (a normalized query, keywords) ask for it cheap (CHEAP)."""
    return any(not CHEAP.isdisjoint(words(phrase)) for phrase in phrases)


def with_audience(keywords: Sequence[str], normalized: str) -> list[str]:
    """The keywords, and the words of the normalized query that say who it is for (AUDIENCE)
    when no keyword says so: a model that kept the shopper's "ladkiyon" as a keyword wrote
    "for girls" in its normalized query alone."""
    said = {word for keyword in keywords for word in words(keyword)}
    if said & AUDIENCE:
        return list(keywords)
    return [*keywords, *dict.fromkeys(word for word in words(normalized) if word in AUDIENCE)]


def without_shopping_words(keywords: Sequence[str], normalized: str = "") -> list[str]:
    """The keywords with their words of shopping left out (SHOPPING), with the word of degree
    before one ("top rated", "most popular", "hot deals"), and those that held nothing else;
    and a keyword
    that is a word of degree alone where the normalized query has it before another keyword
    ("top wireless earbuds" kept as "top" and "wireless earbuds": praise, where "top for women"
    or "crop top" is the thing)."""
    kept = _without_shopping(keywords)
    said = words(normalized)
    starts = {words(keyword)[0] for keyword in kept if words(keyword)} - AUDIENCE
    held = {word for keyword in kept for word in words(keyword)}
    # Before a thing and after no word of one: "lap top table" is a laptop table.
    padded = ["", *said, ""]
    praise = {
        word
        for before, word, following in zip(padded, padded[1:], padded[2:], strict=False)
        if word in _SHOPPING_DEGREE and following in starts and before not in held
    }
    return [keyword for keyword in kept if not set(words(keyword)) <= praise]


def _without_shopping(keywords: Sequence[str]) -> list[str]:
    """The keywords with their words of shopping and the words of degree before them left
    out, and those that held nothing else."""
    kept = []
    for keyword in keywords:
        written = keyword.split()
        shopping = [set(words(part)) <= SHOPPING for part in written]
        left = [
            part
            for part, is_shopping, after in zip(
                written, shopping, [*shopping[1:], False], strict=True
            )
            if not is_shopping and not (after and set(words(part)) <= _BEFORE_SHOPPING)
        ]
        if left:
            kept.append(" ".join(left) if len(left) < len(written) else keyword)
    return kept


def words(text: str) -> list[str]:
    """The lower-case words of a text, apostrophes inside a word dropped ("women's": womens)."""
    return _WORD.findall(_APOSTROPHES.sub("", text.lower()))


def terms(text: str) -> list[str]:
    """The stemmed words of a text, in order, stop words included (phrases need positions)."""
    get = _stems.get
    return [get(word) or stem(word) for word in words(text)]


def query_terms(text: str) -> list[str]:
    """The stemmed words of a keyword that search looks for: stop words left out."""
    return [stem(word) for word in words(text) if word not in STOP_WORDS]


# A model number or a measure written as one token: digits with letters or with a decimal part
# ("x200", "v236w", "256gb", "1.5"). The analyzer reads it as several terms ("1.5": 1, 5).
_MODEL_TOKEN = re.compile(r"[^\W_]*\d[^\W_]*(?:[.,]\d+[^\W_]*)*")


def model_units(keywords: Sequence[str]) -> list[tuple[str, ...]]:
    """The model numbers and measures of the keywords, each as its terms in order: a unit
    that counts only where those terms stand together ("1.5" of "1.5 ton" is not the 1 and 5
    of "2.0 Ton ... 5 in 1")."""
    units: list[tuple[str, ...]] = []
    for keyword in keywords:
        for token in _MODEL_TOKEN.findall(keyword):
            found = tuple(terms(token))
            if len(found) > 1 and found not in units:
                units.append(found)
    return units


def outside_units(keywords: Sequence[str]) -> set[str]:
    """The terms the keywords hold outside their model numbers and measures: the 5 of
    "1.5 ton 5 star" is a word of its own as well as a part of "1.5"."""
    found: set[str] = set()
    for keyword in keywords:
        rest = _MODEL_TOKEN.sub(
            lambda token: " " if len(terms(token[0])) > 1 else token[0], keyword
        )
        found.update(query_terms(rest))
    return found


def adjacent(unit: Sequence[str], field: Sequence[str]) -> bool:
    """Whether the terms of `unit` stand next to each other, in order, in `field`."""
    width = len(unit)
    return any(
        tuple(field[start : start + width]) == tuple(unit)
        for start in range(len(field) - width + 1)
    )


def near(phrase: Sequence[str], field: Sequence[str]) -> bool:
    """Whether the terms of `phrase` occur in `field` in their order, with at most
    PHRASE_SLACK other words among them ("yoga mat": "Yoga Exercise Mat", not "Mat for Yoga";
    "5 star": "5 Star", not "1.5 Ton 3 Star")."""
    if not phrase:
        return False
    if len(phrase) == 1:
        return phrase[0] in field
    for start, term in enumerate(field):
        if term != phrase[0]:
            continue
        position, skipped = start, 0
        for wanted in phrase[1:]:
            position += 1
            while position < len(field) and field[position] != wanted:
                skipped += 1
                position += 1
            if position >= len(field) or skipped > PHRASE_SLACK:
                break
        else:
            return True
    return False


# Words before a word that say a product is without it ("Non Padded", "No Sugar", "Without
# Lid"), and the word after one that says so ("Sugar Free", "Wire-Free"), but for the size
# ("Blue Free Size" is blue).
NEGATING = frozenset({"non", "no", "without"})
NEGATED_AFTER = "free"
NOT_NEGATING_AFTER = "size"


def negated(field: Sequence[str], at: int) -> bool:
    """Whether the term at `at` of `field` is named as what the product is without."""
    if at > 0 and field[at - 1] in NEGATING:
        return True
    return field[at + 1 : at + 2] == [NEGATED_AFTER] and (
        field[at + 2 : at + 3] != [NOT_NEGATING_AFTER]
    )


def held_plainly(phrase: Sequence[str], field: Sequence[str]) -> bool:
    """Whether `field` holds the terms of `phrase` near each other (near), a single term only
    where it is not named as what the product is without: "Non Padded Bra" and "Wire Free
    Bra" hold no padding and no wire, "Lightly Padded" does."""
    if len(phrase) != 1:
        return near(phrase, field)
    return any(term == phrase[0] and not negated(field, at) for at, term in enumerate(field))


def accessory_of(heads: Sequence[str], title: Sequence[str], asked: set[str]) -> bool:
    """Whether a title offers an accessory of the product `heads` name (each keyword's last
    term): an accessory word the shopper did not ask for right after a head's first mention,
    or before a "for" up to three words ahead of it."""
    for head in heads:
        if head not in title:
            continue
        at = title.index(head)
        after = title[at + 1] if at + 1 < len(title) else ""
        if after in ACCESSORY_TERMS and after not in asked:
            return True
        for position in range(max(1, at - 3), at):  # "Stand for (Acoustic) Guitar"
            before = title[position - 1]
            if title[position] == "for" and before in ACCESSORY_TERMS and before not in asked:
                return True
    return False


def mentions(keyword: str, field: Sequence[str]) -> bool:
    """Whether a field's terms hold a keyword: its one word, or its words near each other."""
    return near(query_terms(keyword), field)
