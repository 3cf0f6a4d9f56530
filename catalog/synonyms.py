"""Words that name the same thing, for the every-keyword tiers (catalog/search.py).

A shopper's model may answer "trousers" where the catalog's titles say "pants", "couch" where
they say "sofa", "nappy" where they say "diaper". Each group below names one thing in the
words shoppers and catalogs use for it: British, American and Indian English, and the
transliterated Hindi and Spanish a shopper types. A keyword holding one of a group's words (or
phrases) is also asked with each of the others in its place, the shopper's own words first.

A word joins a group only when every one of its senses in a shop is the group's thing: "shades"
(sunglasses, and a colour's shades), "purse" (a wallet in Britain, a handbag in America) and
"notebook" (a laptop, and paper) stay out. One word spelt two ways ("colour", "color") is no
synonym: the analyzer reads both alike (catalog/variants.py). How to add one:
docs/relevance_figures.md, "Adding a synonym group".
"""

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import chain, combinations

from catalog import text

GROUPS: tuple[tuple[str, ...], ...] = (
    # Clothing and shoes
    ("trousers", "pants"),
    ("sneakers", "trainers"),
    ("sweater", "jumper", "pullover"),
    ("nightwear", "sleepwear"),
    ("swimsuit", "swimwear", "bathing suit"),
    ("chappals", "slippers"),
    ("spectacles", "eyeglasses"),
    ("wristwatch", "watch"),
    ("metal strap", "steel strap", "bracelet strap", "mesh strap"),
    (
        "ankle socks",
        "low cut socks",
        "no show socks",
        "loafer socks",
        "short socks",
        "sneaker socks",
    ),
    ("bicycle", "cycle"),
    ("backpack", "rucksack"),
    ("suitcase", "trolley bag"),
    ("racket", "racquet"),
    ("children", "kids"),
    # Home and kitchen
    ("sofa", "couch", "settee"),
    ("wardrobe", "almirah"),
    ("duvet", "comforter"),
    ("bedsheet", "bed sheet"),
    ("curtains", "drapes"),
    ("tap", "faucet"),
    ("dustbin", "trash can", "garbage bin", "waste bin"),
    ("torch", "flashlight"),
    ("fridge", "refrigerator"),
    ("hob", "cooktop"),
    ("tiffin", "lunch box"),
    ("crockery", "dinnerware"),
    ("cling film", "cling wrap"),
    ("anti slip", "anti skid", "non slip", "non skid"),
    # Food: titles clip a flavour's name ("Choco Chip Cookies", "Choc Filled"); a cost known:
    # "dark chocolate" also finds "Dark Fantasy Choco Fills" cookies
    ("chocolate", "choco", "choc"),
    # Electronics
    ("mobile phone", "cell phone", "smartphone"),
    ("tv", "television"),
    ("spike guard", "surge protector", "extension board", "power strip"),
    ("air conditioner", "ac"),
    # Babies and care
    ("nappy", "diaper"),
    ("pram", "stroller"),
    ("cot", "crib"),
    ("dummy", "pacifier"),
)
# Words of other languages, asked in English (never the other way: an English title rarely says
# "reloj", and each rewrite costs a search).
TRANSLATED: dict[str, str] = {
    "joote": "shoes",
    "joota": "shoes",
    "chappal": "slippers",
    "hawai chappal": "flip flops",
    "ghadi": "watch",
    "chashma": "spectacles",
    "chai": "tea",
    "chai patti": "tea leaves",
    "kapde": "clothes",
    "zapatos": "shoes",
    "zapatillas": "sneakers",
    "camisa": "shirt",
    "pantalones": "trousers",
    "vestido": "dress",
    "reloj": "watch",
    "mochila": "backpack",
    "gafas de sol": "sunglasses",
    "bolso": "handbag",
}
# A query is asked in at most this many other words than its own (each costs a search).
MOST = 3
# A word that names a family, and the words of its members: the partial tier (catalog/
# partial.py) takes a title that names a member as holding the family's word too ("metal" of a
# stainless steel strap). Never the other way: a shopper asking for steel wants no copper.
FAMILIES: dict[str, tuple[str, ...]] = {
    "metal": (
        *("metallic", "steel", "stainless", "alloy", "iron", "aluminium", "aluminum"),
        *("brass", "copper", "titanium", "chrome", "zinc"),
    ),
}


Stems = tuple[str, ...]


@cache
def _rewrites() -> tuple[tuple[Stems, tuple[Stems, ...]], ...]:
    """Each word or phrase the search rewrites (as stems), with what it is rewritten to."""
    found: dict[Stems, list[Stems]] = {}
    for group in GROUPS:
        members = [tuple(text.query_terms(member)) for member in group]
        for member in members:
            found.setdefault(member, []).extend(other for other in members if other != member)
    for word, english in TRANSLATED.items():
        found.setdefault(tuple(text.query_terms(word)), []).append(tuple(text.query_terms(english)))
    # The longest phrase first: "chai patti" is rewritten as a whole before "chai" alone.
    ordered = sorted(found.items(), key=lambda pair: -len(pair[0]))
    return tuple((member, tuple(dict.fromkeys(others))) for member, others in ordered)


@cache
def _by_first_stem() -> dict[str, tuple[int, ...]]:
    """Where in _rewrites() each phrase starting with a stem stands: a keyword is looked for
    only among the phrases starting with one of its stems (a few, not a few hundred)."""
    found: dict[str, list[int]] = {}
    for at, (member, _others) in enumerate(_rewrites()):
        found.setdefault(member[0], []).append(at)
    return {first: tuple(places) for first, places in found.items()}


def _rewrites_of(keyword: Sequence[str]) -> list[tuple[Stems, tuple[Stems, ...]]]:
    """The rewrites whose phrase may stand in `keyword`, in _rewrites()'s order (the longest
    phrase first)."""
    index, rewrites = _by_first_stem(), _rewrites()
    places = sorted({at for stem in keyword for at in index.get(stem, ())})
    return [rewrites[at] for at in places]


def variants(keywords: Sequence[Sequence[str]], most: int = MOST) -> list[list[list[str]]]:
    """The keywords (each a list of stems) with one keyword's word or phrase put in other words
    of its group (or in English), one rewrite each, in the order of the keywords; then two
    keywords rewritten at once ("bicycle for children": cycle for kids); never the keywords
    themselves, nor a rewrite into words another keyword holds."""
    asked = [list(terms) for terms in keywords]
    rewrites = [_rewritten(asked, at) for at in range(len(asked))]
    singles = ({at: rewritten} for at, each in enumerate(rewrites) for rewritten in each)
    pairs = (
        {first: one, second: other}
        for first, second in combinations(range(len(asked)), 2)
        for one in rewrites[first]
        for other in rewrites[second]
    )
    found: list[list[list[str]]] = []
    for changes in chain(singles, pairs):  # lazily: most are never built
        variant = [changes.get(at, terms) for at, terms in enumerate(asked)]
        if variant not in found:
            found.append(variant)
        if len(found) >= most:
            break
    return found


def _rewritten(asked: list[list[str]], at: int) -> list[list[str]]:
    """Keyword `at` in each other words of its longest phrase that has a group, none of them
    words another keyword holds."""
    keyword = asked[at]
    for member, others in _rewrites_of(keyword):
        start = _find(member, keyword)
        if start is None:
            continue
        rewritten = [
            [*keyword[:start], *other, *keyword[start + len(member) :]] for other in others
        ]
        return [terms for terms in rewritten if not _said(terms, asked, at)]
    return []


def other_words(keyword: Sequence[str]) -> list[list[str]]:
    """The keyword (stems) in each other words of its longest phrase that has a group, every
    one: what an excluded thing is ruled out under (words of one filter, where `variants`
    stops at MOST because each of its rewrites costs a search)."""
    return _rewritten([list(keyword)], 0)


def distinct(keywords: Sequence[Sequence[str]]) -> list[int]:
    """Where the keywords (each a list of stems) stand that name no thing a keyword before
    them names in other words: a model may list "spike guard" and "surge protector", two names
    of what a product holds one of, never both."""
    kept: list[int] = []
    for at, keyword in enumerate(keywords):
        if not any(_one_thing(keywords[before], keyword) for before in kept):
            kept.append(at)
    return kept


def _one_thing(first: Sequence[str], second: Sequence[str]) -> bool:
    """Whether two keywords (stems) are one in other words of a group of GROUPS (not a word of
    another language beside its English: "ghadi" may be a brand's name too)."""
    return list(second) in other_words(first) and list(first) in other_words(second)


def same_thing(word: str) -> tuple[str, ...]:
    """The one-word stems naming what the one-word stem `word` names (its own first): a
    product type's other names ("cycl": bicycl)."""
    for member, others in _rewrites_of([word]):
        if member == (word,):
            return (word, *(other[0] for other in others if len(other) == 1))
    return (word,)


def is_name(phrase: str) -> bool:
    """Whether a phrase, whole, is one of the names a group gives a thing ("no show socks": a
    kind of socks, though it begins with "no")."""
    terms = tuple(text.query_terms(phrase))
    return any(member == terms for member, _others in _rewrites_of(terms))


def _said(rewritten: Sequence[str], keywords: Sequence[Sequence[str]], at: int) -> bool:
    """Whether another keyword already holds the rewritten one's words (the model said "ghadi"
    and "watch"): the rewrite would only drop a word, which is the partial tier's to do."""
    return any(
        set(rewritten) <= set(keyword) for other, keyword in enumerate(keywords) if other != at
    )


def _find(member: Sequence[str], keyword: Sequence[str]) -> int | None:
    """Where `member`'s stems stand together in `keyword`, if they do."""
    size = len(member)
    for start in range(len(keyword) - size + 1):
        if tuple(keyword[start : start + size]) == tuple(member):
            return start
    return None


@cache
def families() -> Mapping[str, frozenset[str]]:
    """Each family's word and its members' words, as stems."""
    return {
        text.stem(family): frozenset(text.stem(member) for member in members)
        for family, members in FAMILIES.items()
    }
