"""What a request wants, as search reads it (`understood`): the kinds of thing (catalog/types.py)
in each of the catalog's spellings (catalog/compounds.py) and corrected where the catalog does not
know them (catalog/spelling.py), the brand it names, and whether its categories hold any of it.

The brand a request names, where the catalog shows the word is one (catalog/brands.py).

Not every title starts with a brand ("Cycle Bell for Bicycle"), so a keyword's word is a brand
only when it is the brand key of LEADS products or more, and of SHARE of the products that hold
it anywhere: "nivia" leads the titles that hold it; "cycle", the first word of some titles, is
held by many more that are no brand's. Search ranks the brand's products of the wanted kind
first, then its others (catalog/ordering.py, standing). The counts are kept as statistics of
the catalog (catalog/versions.py).
"""

from collections.abc import Sequence
from dataclasses import replace

from catalog import compounds, fulltext, holdings, spelling, text, types, versions
from catalog.brands import key_of
from catalog.query import SearchQuery

LEADS = 3
SHARE = 0.5
# Products of the wanted kind outside the resolved categories that show the categories wrong.
ELSEWHERE = 3


def understood(query: SearchQuery) -> SearchQuery:
    """The query with what it wants read against the catalog; keywords in words the catalog
    does not hold searched as the model's reading of the request; categories that hold nothing
    of it while others do (misplaced) are a wrong hint and confine no tier."""
    query = in_catalog_words(query)
    said = [query.reading, *query.keywords]
    kinds = spelling.corrected_kinds(compounds.kinds(query.wanted, said), said)
    query = replace(query, wanted=kinds, brand=brand(query.keywords))
    if query.categories and query.wanted and not query.only_categories and misplaced(query):
        query = replace(query, categories=())
    return query


def in_catalog_words(query: SearchQuery) -> SearchQuery:
    """The query, the model's reading of the request searched first when a keyword names only
    things no product holds, under any name, and the reading names one a product holds: a
    model that restated "sardi ke liye kambal" as "warm blanket for winter" but kept "kambal"
    and "sardi" as its keywords, "pani ki botal" beside "steel", or "zapatillas para correr
    hombre" as "running shoes for men" with "correr" and "hombre" beside "zapatillas" (which
    the catalog knows as sneakers). Such a keyword is left out; the others stay beside the
    reading. Keywords that name no thing ("5g", "128gb") stay, and so does a misspelt one
    ("umbrela": the reading names no other thing)."""
    if not query.reading:
        return query
    things = {keyword: _things_held(keyword) for keyword in query.keywords}
    unheld = [keyword for keyword, found in things.items() if found and not any(found)]
    if not unheld or not any(_things_held(query.reading)):
        return query
    kept = [keyword for keyword in query.keywords if keyword not in unheld]
    return replace(query, keywords=[*text.without_shopping_words([query.reading]), *kept])


def _things_held(phrase: str) -> list[bool]:
    """For each thing a phrase names (catalog/types.py), whether some product holds its word."""
    return [bool(fulltext.documents_with(kind[-1], 1)) for kind in types.wanted_kinds([phrase])]


def misplaced(query: SearchQuery) -> bool:
    """Whether the model named categories that hold nothing of what the shopper wants while
    others do ("a lunchbox" is no school bag). Where the catalog shows the kind in too few
    places (types read from titles are not always right), the categories stand."""
    names = {name.lower() for name in query.categories}
    found = holdings.of_kinds([tuple(kind) for kind in query.wanted])
    inside = any(first in names or second in names for first, second, _ in found)
    return not inside and len(found) >= ELSEWHERE


def brand(keywords: Sequence[str]) -> str:
    """The key of the first brand the keywords name, "" for none."""
    for keyword in keywords:
        for word in text.words(keyword):
            key = key_of(word)
            if len(key) > 1 and not key.isdigit() and _is_brand(key, text.stem(word)):
                return key
    return ""


def _is_brand(key: str, stem: str) -> bool:
    led = int(versions.statistic("brand-leads", key, lambda: holdings.led_by(key, fulltext.COMMON)))
    return led >= LEADS and led >= SHARE * fulltext.documents_with(stem, fulltext.COMMON)
