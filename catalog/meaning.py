"""The semantic signal in retrieval (catalog/search.py): what it adds, and where; never leading.

The lexical tiers lead. Meaning (catalog/semantic.py) comes in at two places, both bounded:

- In the partial tier, where the lexical order is weakest (a product holds some of the words):
  each candidate's likeness to the query is added to its lexical weight (FUSED of it), products
  of the resolved categories get INSIDE more, and a candidate that holds only some of the words
  and is unlike the query (below PARTIAL_FLOOR) is left to the tiers after it.
- In the semantic tier, after the partial tier and before the category's other products: the
  products at least NEAREST alike to the query, nearest first, among SEMANTIC_WINDOW products of
  the resolved categories (as their indexes yield them) and those holding any of the keywords'
  words that fewer than COMMON products hold. When the engine
  named no category, the catalog's categories nearest the query (CATEGORY_NEAREST alike) stand
  in for them.

A product's likeness to the query weighs two views equally: its whole text's vector against the
query's, and, for each of the query's words, the title word nearest to it in meaning ("couch":
"sofa"); a whole title's vector is diluted by its other words, a single word is not. The weights
were chosen on the labelled queries of `make relevance` as a whole (docs/relevance.md), never
for one of them: the set does better with the signal than without it, and no kind of query
loses more than a query's worth (the figures are docs/relevance.md's).
"""

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from catalog import compounds, fulltext, ordering, semantic, spelling, text
from catalog.categories import catalog_categories
from catalog.query import SearchQuery

FUSED = 0.5
INSIDE = 0.05
PARTIAL_FLOOR = 0.3
NEAREST = 0.45
CATEGORY_NEAREST = 0.3
SEMANTIC_WINDOW = 500
# The candidates the semantic tier reads back that hold a keyword's word.
CANDIDATES = 200
# The weight of the whole text's vector in a product's likeness; the title's words have the rest.
WHOLE = 0.5


@dataclass(frozen=True)
class Meaning:
    """What a query means: its vector, and its words as the signal compares them."""

    vector: semantic.Vector
    words: tuple[str, ...]
    # Its words that most titles write as two, with the two ("doormat": door, mat).
    apart: tuple[tuple[str, tuple[str, str]], ...] = ()


def of(query: SearchQuery) -> Meaning | None:
    """The query's meaning (the engine's keywords, else the shopper's words, a misspelt word
    read as the catalog's word it misspells: "ketle" means nothing to the model of meaning);
    None while the signal is off or the query has no words."""
    if not semantic.enabled():
        return None
    source = spelling.spelt_right(" ".join(query.keywords) or query.text)
    vector = semantic.query_vector(source)
    if vector is None:
        return None
    words = [word for word in text.words(source) if word not in text.STOP_WORDS and len(word) > 1]
    # Who a product is for ("men") says nothing of what it is; every men's product holds it.
    named = [word for word in words if word not in text.AUDIENCE] or words
    # A word most titles write as two ("doormat": "Door Mat") is answered by a title holding
    # either: its words are compared one by one, and "mat" alone is only near "doormat".
    apart = tuple((word, two) for word in named if (two := compounds.written_apart(word)))
    return Meaning(vector, tuple(named), apart)


def likeness(query: Meaning, found: Sequence[fulltext.Candidate]) -> list[float]:
    """How near in meaning each candidate is to the query, about 0 to 1."""
    whole = semantic.similarities(query.vector, [candidate.embedding for candidate in found])
    titles = [_title_words(candidate) for candidate in found]
    words = semantic.word_likeness(query.words, titles, dict(query.apart))
    return [WHOLE * a + (1 - WHOLE) * b for a, b in zip(whole, words, strict=True)]


def fused(
    query: Meaning,
    weighed: list[tuple[fulltext.Candidate, float]],
    unread: Collection[int] = (),
) -> list[tuple[fulltext.Candidate, float]]:
    """The partial tier's candidates with their lexical weight (0-1, 1 when a product holds
    every word) and likeness fused; those holding only some words and unlike the query left
    out, but for the `unread` ones (whose words the model of meaning cannot read as the
    query's: a "Pen Drive" for a "pendrive")."""
    alike = likeness(query, [candidate for candidate, _ in weighed])
    return [
        (candidate, lexical + FUSED * close + INSIDE * candidate.in_categories)
        for (candidate, lexical), close in zip(weighed, alike, strict=True)
        if close >= PARTIAL_FLOOR or lexical >= 0.999 or candidate.product_id in unread
    ]


def nearest(
    filters: fulltext.Filters, keywords: list[list[str]], limit: int, query: Meaning | None
) -> list[int]:
    """The semantic tier: the products nearest in meaning to the query, best first."""
    if query is None:
        return []
    categories = tuple(filters.categories) or tuple(
        name.lower()
        for name in semantic.nearest_names(
            query.vector, catalog_categories(), least=CATEGORY_NEAREST, most=2
        )
    )
    if not categories:
        return []
    inside = replace(filters, categories=categories, within=True)
    window = fulltext.candidates(None, inside, SEMANTIC_WINDOW, by_id=False)
    pool = {candidate.product_id: candidate for candidate in window}
    # Those holding a keyword's word that few products hold, wherever they stand in the
    # categories (a word most products hold would only fill the database's window).
    words = [
        [term]
        for term in dict.fromkeys(term for keyword in keywords for term in keyword)
        if fulltext.documents_with(term, fulltext.COMMON) < fulltext.COMMON
    ]
    if words:
        match = fulltext.Match(words, every=False)
        for candidate in fulltext.candidates(match, inside, CANDIDATES):
            pool.setdefault(candidate.product_id, candidate)
    found = list(pool.values())
    near = sorted(
        (
            (close, candidate)
            for close, candidate in zip(likeness(query, found), found, strict=True)
            if close >= NEAREST
        ),
        key=lambda pair: (
            *ordering.standing(pair[1]),
            -round(pair[0], 6),
            -pair[1].sales,
            pair[1].product_id,
        ),
    )
    ordered = [candidate for _, candidate in near]
    return [
        candidate.product_id
        for candidate in ordering.ranked(ordered, keywords, limit, by_order=True)
    ]


def _title_words(candidate: fulltext.Candidate) -> tuple[str, ...]:
    return _words_of(candidate.title)


@lru_cache(maxsize=4096)
def _words_of(title: str) -> tuple[str, ...]:
    """A title's words as likeness compares them, once per process for the titles read most."""
    return tuple(
        word for word in text.words(title) if word not in text.STOP_WORDS and len(word) > 1
    )
