"""Who a product is for, as its title says, against whom the shopper asked for: "men's socks"
asked, "Women's Low Cut Socks" are for someone else and are served after the rest (the
retrieval set-aside, catalog/aside.py), never dropped. A title that names nobody is for anyone
("Unisex" names nobody: "Unisex Adult Cycle" names adults).

An audience is asked for in the resolution's target audience, its keywords or its reading of the
request ("men", "for girls", or by relation: "for my father"); a title names one in its words
("Men's", "for Boys & Girls"). Each asked audience
accepts its own and those a shopper asking for it would be glad of: women the titles that say
girls and girls those that say women (the catalog's and the shoppers' word for young women as
much as for children: "ladkiyon ke liye watch"), a child those that say kids, boys or girls.

Babies both ways: a title naming a baby is served after the rest where the shopper names no one
young, and a title naming no one young after the rest where the shopper names a baby; and where
the shopper names a child (kids, a boy, a son), a title naming no one young after the rest too
(an adult's toothpaste for "tooth paste for kids"; "Flip-Flops for Women & Girls", girls beside
women naming a woman's). A toddler's things need not say so.
"""

from collections.abc import Collection, Iterable, Sequence
from itertools import pairwise

from catalog import text

# The words that name each audience, as stems.
_NAMED = {
    audience: frozenset(text.stem(word) for word in words)
    for audience, words in {
        "men": ("men", "mens", "gents", "gentlemen"),
        "women": ("women", "womens", "woman", "ladies"),
        "boys": ("boy", "boys"),
        "girls": ("girl", "girls"),
        "kids": ("kids", "kid", "children", "child", "toddler", "toddlers", "infant", "baby"),
        "adults": ("adult", "adults"),
    }.items()
}
_ACCEPTS = {
    "men": {"men", "adults"},
    "women": {"women", "girls", "adults"},
    "boys": {"boys", "kids"},
    "girls": {"girls", "kids", "women"},
    "kids": {"kids", "boys", "girls"},
    "adults": {"men", "women", "adults"},
}
# Whom a shopper names by relation ("for my father", "mere papa ke liye", "for my son"): read in
# requests only, never in titles ("Mother Sparsh" is a brand of baby care, "Mother Dairy" ghee),
# and only after a word that says whose, a few words before at most ("for my 8 year old son";
# "boyfriend jeans" are women's, "beta alanine" no boy's).
_RELATIONS = {
    text.stem(word): audience
    for audience, words in {
        "men": (
            *("father", "dad", "daddy", "papa", "husband", "boyfriend", "brother"),
            *("grandfather", "grandpa", "uncle", "bhai", "pati", "pitaji"),
        ),
        "women": (
            *("mother", "mom", "mum", "mummy", "maa", "wife", "girlfriend", "sister"),
            *("grandmother", "grandma", "aunt", "didi", "behen", "patni", "mataji"),
        ),
        "boys": ("son", "beta", "bete", "nephew"),
        "girls": ("daughter", "beti", "niece"),
    }.items()
    for word in words
}
_WHOSE = frozenset(
    text.stem(word)
    for word in ("for", "my", "his", "her", "our", "their", "mere", "meri", "mera", "apne", "apni")
)
# How far before a relation a possessive may stand ("for my 8 year old son"); "for" must stand
# right before it ("ghee for cooking, Mother Dairy" names no one).
_WHOSE_REACH = 4
_POSSESSIVE = _WHOSE - {text.stem("for")}
_BABY = text.stem("baby")
# The words that name a baby, in a title or a request: a shopper who names no one, asking for a
# blanket or a pillow, is not served a newborn's first.
_BABIES = frozenset(
    text.stem(word)
    for word in ("baby", "babies", "infant", "infants", "newborn", "newborns", "toddler")
)
# "Baby pink" is a colour, not an audience.
_COLOURS = frozenset({"pink", "blue", "yellow", "green", "peach", "purple", "lilac", "white"})


def asked(phrases: Iterable[str]) -> tuple[str, ...]:
    """The audiences the phrases (a target audience, keywords, the model's reading) name, in
    order of name, a relation as whom it names ("father": men)."""
    found: set[str] = set()
    for phrase in phrases:
        terms = text.terms(phrase)
        found |= _named(terms)
        found |= {
            _RELATIONS[term]
            for at, term in enumerate(terms)
            if term in _RELATIONS and _whose(terms, at)
        }
    return tuple(sorted(found))


def names_young(phrases: Iterable[str]) -> bool:
    """Whether the phrases (a target audience, keywords, the reading, categories) name a baby
    or a child: a shopper who does is served for them as asked."""
    young = _NAMED["kids"] | _NAMED["boys"] | _NAMED["girls"] | _BABIES
    return any(term in young for phrase in phrases for term in text.terms(phrase))


def a_child_s(title: str, *, aged: bool = False) -> bool:
    """Whether a title names a baby or a child as whom the product is for: kids, a baby, boys, or
    girls where it names no women beside them ("Flip-Flops for Women & Girls" are a woman's, in
    her sizes, girls the catalog's word for young women too; "for Boys & Girls" a child's).
    `aged`: the shopper stated a child's age (catalog/ages.py), so boys beside men are young men
    too ("T-Shirt for Men & Boys" is a man's, in his sizes, not an 8 year old's); a shopper who
    asks "for boys" alone may mean either."""
    terms = set(text.terms(title))
    if not terms.isdisjoint(_NAMED["kids"] | _BABIES):
        return True
    if not terms.isdisjoint(_NAMED["boys"]) and not (aged and not terms.isdisjoint(_NAMED["men"])):
        return True
    return not terms.isdisjoint(_NAMED["girls"]) and terms.isdisjoint(_NAMED["women"])


def _whose(terms: Sequence[str], at: int) -> bool:
    """Whether the relation at `at` follows a word that says whose."""
    before = terms[max(0, at - _WHOSE_REACH) : at]
    return (bool(before) and before[-1] in _WHOSE) or not _POSSESSIVE.isdisjoint(before)


def names_child(named: Collection[str], phrases: Iterable[str]) -> bool:
    """Whether a request whose phrases (a target audience, keywords, the reading) name the
    audiences `named` (asked() of them) names a child whose things say so (kids, boys, or girls
    beside kids; by relation, a son): not a baby or a toddler, whose things need not, nor girls
    alone, the catalog's word for young women too."""
    return ("kids" in named or "boys" in named) and not any(
        _names_among(phrase, _BABIES) for phrase in phrases
    )


# The words that name a baby too young to choose: a toddler's night lamp need not say so.
_INFANTS = _BABIES - {text.stem("toddler")}


def names_baby(phrases: Iterable[str]) -> bool:
    """Whether the phrases (a target audience, keywords, the reading) name a baby, not a
    toddler."""
    return any(_names_among(phrase, _INFANTS) for phrase in phrases)


def for_babies(title: str) -> bool:
    """Whether a title names a baby ("Milestone Blanket for Baby", "Newborn Pillow"; not "Baby
    Pink")."""
    return _names_among(title, _BABIES)


def _names_among(phrase: str, stems: frozenset[str]) -> bool:
    """Whether a word of the phrase is one of `stems`, but as a colour ("baby pink")."""
    return any(
        term in stems and not _a_colour(term, following)
        for term, following in pairwise([*text.terms(phrase), ""])
    )


def _a_colour(term: str, following: str) -> bool:
    """Whether a term and the one after it name a colour ("baby pink"), not an audience."""
    return term == _BABY and following in _COLOURS


def for_anyone(keywords: Sequence[Sequence[str]]) -> list[list[str]]:
    """The keywords (stems) but those that only say whom it is for, when some do and some do
    not; none otherwise. The fuzzy tier asks them inside the resolved categories, where a
    title that names nobody is for anyone ("trimer", "men": a beard trimmer filed under
    personal care, before a tummy trimmer for men elsewhere)."""
    kept = [list(keyword) for keyword in keywords if not set(keyword) <= text.AUDIENCE_TERMS]
    return kept if 0 < len(kept) < len(keywords) else []


def for_others(wanted: Collection[str], title: str) -> bool:
    """Whether the title names only audiences none of `wanted` accepts (none when it names
    nobody, or anyone)."""
    if not wanted:
        return False
    named = _named(text.terms(title))
    accepted = {audience for one in wanted for audience in _ACCEPTS[one]}
    return bool(named) and not named & accepted


def names_one(title: str) -> bool:
    """Whether the title names an audience."""
    return bool(_named(text.terms(title)))


def _named(terms: Sequence[str]) -> set[str]:
    found = set()
    for at, term in enumerate(terms):
        following = terms[at + 1] if at + 1 < len(terms) else ""
        if _a_colour(term, following):
            continue
        found |= {audience for audience, stems in _NAMED.items() if term in stems}
    return found
