"""The words of a request that name a product: the partial tier (catalog/search.py) serves only
products that hold one of them.

A keyword names its last word of letters (never a part of a model number: "w" of "v236w", "gb"
of "64gb"; never a measure's unit; a word that counts what comes together only beside the word
before it: "kurta" of "kurta set with dupatta", "face" and "pack" of "face pack"), read up to
where a title's next phrase would start (catalog/types.py): a model's keyword that is the whole
request ("stainless steel water bottle 1 litre for gym") names a bottle, not the gym or the
litre. A keyword of words that name no thing ("durable", "kids", "stainless steel") names
nothing, while another keyword names something. A corrected word is a guess: it names a product
unless another keyword names what more products are (catalog/holdings.py): "ghadi" corrected
into "khadi" beside "watch" names nothing, "blankit" corrected into "blanket" beside "winter"
names the blanket. A corrected word that is the thing the model's reading of the request (its
normalized query) names is no guess: "ketle" of "latest electric ketle" is a kettle, and weighs
as a kettle does beside "electric". A word the model's reading holds only past "for", "with" and
the like says what the thing is for or goes with ("office" of "electric kettle for office use"):
it names no product beside a word that does.
"""

from collections.abc import Sequence

from catalog import holdings, measures, spelling, text, types


def named(
    keywords: Sequence[Sequence[str]],
    sources: Sequence[str],
    guessed: set[str],
    units: Sequence[tuple[str, ...]],
    loose: set[str] | frozenset[str],
    reading: str = "",
) -> set[str]:
    """The stems that name a product, of `keywords` (the tier's reading of each of `sources`,
    the model's keywords: catalog/spelling.py)."""
    numbered = _numbered(units, loose)
    every = {_last_word(keyword, keyword, numbered) for keyword in keywords}
    found = {
        _thing_word(source, keyword, numbered)
        for keyword, source in zip(keywords, sources, strict=True)
        if not types.describes_only(source)
    }
    # A counting word that ends a keyword still names what a product may be too ("face pack",
    # "dinner set"): beside the word before it, not in its place.
    found |= {
        letters[-1]
        for keyword in keywords
        if len(letters := [term for term in keyword if term.isalpha()]) > 1
        and letters[-1] in types.COUNT_TERMS
        and found
    }
    found = (found or every) - text.AUDIENCE_TERMS - numbered
    found = (found - what_for(reading)) or found
    others, guesses = found - guessed, found & guessed
    if others and guesses and not keeps_guess(others, guesses):
        return others
    return found


def confirmed(
    reading: str,
    guessed: set[str],
    units: Sequence[tuple[str, ...]],
    loose: set[str] | frozenset[str],
) -> set[str]:
    """Those of the corrected words (`guessed`) that are the thing the reading names."""
    phrase = types.first_phrase(reading)
    if not guessed or not text.words(phrase):
        return set()
    read, _, _ = spelling.known([phrase])
    if not read:
        return set()
    return {_thing_word(phrase, read[0], _numbered(units, loose))} & guessed


def what_for(reading: str) -> set[str]:
    """The stems the model's reading of the request holds only past the words that start what
    the thing is for or goes with ("office" of "electric kettle for office use", "iphone" of
    "case for iphone 13"): they name no product the shopper wants. None where the reading
    starts with them ("for office: electric kettle") or has none."""
    # A list of things ("lipstick, kajal and eyeliner") or a budget ("under 500") starts none.
    thing, *rest = types.PURPOSE.split(reading, maxsplit=1)
    if not rest or not text.words(thing):
        return set()
    return set(text.query_terms(rest[0])) - set(text.query_terms(thing))


def keeps_guess(others: set[str], guesses: set[str]) -> bool:
    """Whether corrected words still name the product beside `others`: unless another names
    what more products are."""
    things = max(holdings.typed(stem) for stem in others)
    return things <= max(holdings.typed(stem) for stem in guesses)


def _numbered(units: Sequence[tuple[str, ...]], loose: set[str] | frozenset[str]) -> set[str]:
    """The terms that stand only in a model number or measure ("1.5", "x200")."""
    return {term for unit in units for term in unit} - loose


def _thing_word(source: str, keyword: Sequence[str], numbered: set[str]) -> str:
    """The last word of letters of a keyword's first phrase, no measure, as the tier reads it
    in the keyword; read again only when the tier changed it: corrected ("bottel": bottle) or
    read as two ("waterbottle": water bottle)."""
    phrase = measures.without(types.first_phrase(source))
    terms = text.query_terms(phrase)
    letters = _without_counts([term for term in terms if term.isalpha() and term not in numbered])
    if letters and letters[-1] in keyword:
        return letters[-1]
    last = next((word for word in reversed(text.words(phrase)) if word.isalpha()), None)
    if last is not None and text.stem(last) not in numbered:
        read, _, _ = spelling.known([last])
        if read:
            return _last_word([*terms, *read[0]], keyword, numbered)
    return _last_word(terms, keyword, numbered)


def _last_word(phrase: Sequence[str], keyword: Sequence[str], numbered: set[str]) -> str:
    """The phrase's last word of letters, where the tier reads it in the keyword; else the
    keyword's own."""
    last = _without_counts([term for term in phrase if term.isalpha() and term not in numbered])
    if last and last[-1] in keyword:
        return last[-1]
    letters = [term for term in keyword if term.isalpha() and term not in numbered]
    return next(reversed(_without_counts(letters)), keyword[-1]) if letters else keyword[-1]


def _without_counts(terms: Sequence[str]) -> list[str]:
    """Words of letters without those that end them counting what comes together ("kurta
    set": kurta; "socks pack": socks); all of them where nothing else is left ("combo")."""
    kept = list(terms)  # of letters only
    while len(kept) > 1 and kept[-1] in types.COUNT_TERMS:
        kept.pop()
    return kept
