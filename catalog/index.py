"""The catalog's search index: every product's text, analyzed once, held in this process.

Retrieval (catalog/search.py) reads only this index, so a query has one meaning and one order
on SQLite and PostgreSQL alike: the same analyzer (catalog/text.py), the same matching, the same
score. The score is BM25F: a term's occurrences in a product's fields, weighted by field
(title first, then tags, brand, categories, description) and normalized by field length, are
saturated (k1) and multiplied by the term's rarity in the catalog (idf).

The index is built once per process and per catalog version (the products' count and latest
change, read at most every VERSION_CHECK_S), so an import or an edit reaches search within that
time. Measured on the 2-core machine: 10k demo products build in about 1.1 s and hold about
20 MB; 100k in about 5.6 s and 130 MB (docs/relevance.md, "Cost"). A worker builds it before its
first request (CatalogConfig.warm_up); a later build holds only the requests that meet it.
"""

import math
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection

from catalog import text
from gateway.cache import cached

# Field weights of BM25F; a term found in a field sets that field's bit in the posting's mask.
FIELDS = ("title", "tags", "brand", "category", "description")
WEIGHTS = {"title": 3.0, "tags": 2.0, "brand": 1.5, "category": 1.0, "description": 0.5}
BIT = {name: 1 << position for position, name in enumerate(FIELDS)}
NOT_CATEGORY = sum(BIT.values()) & ~BIT["category"]
K1 = 1.2
B = 0.75
# Description text past this many words adds nothing to search. Its words are counted, not
# kept in order: a phrase keyword is found near in the other fields only (memory: a tenth).
DESCRIPTION_TERMS = 300
KEPT_FIELDS = ("title", "tags", "brand", "category")

VERSION_CHECK_S = 60
VERSION_KEY = "catalog:index-version"

# Spelling corrections (the fuzzy tier): candidates share at least this share of the word's
# trigrams, then must be within an edit or two.
SIMILARITY = 0.3
RARE = 3
COMMONER = 10
MAX_CORRECTED = 30  # letters: a longer "word" is not a misspelling worth the edit distance
_TRUNCATED = re.compile(r"(\.\.\.|\u2026)\s*$")


@dataclass(frozen=True, slots=True)
class Doc:
    """One product as search sees it."""

    product_id: int
    fields: tuple[tuple[str, ...], ...]  # the terms of each of KEPT_FIELDS, in order

    def field(self, name: str) -> tuple[str, ...]:
        return self.fields[KEPT_FIELDS.index(name)]

    categories: frozenset[str]  # category_l1 and category_l2, casefolded
    price: float | None
    regions: frozenset[str]  # empty: sold everywhere
    sales: float  # all-time creator GMV


@dataclass(frozen=True, slots=True)
class Posting:
    docs: list[int]  # doc positions, ascending
    weights: list[float]  # the term's length-normalized, field-weighted frequency in each doc
    masks: list[int]  # the fields it occurs in, bits of BIT


@dataclass
class Index:
    docs: list[Doc]
    postings: dict[str, Posting]
    vocabulary: list[str]  # clean whole words of titles, tags and brands (spelling corrections)
    grams: dict[str, list[int]]  # trigram -> vocabulary positions
    by_category: dict[str, list[int]]  # category name (casefolded) -> doc positions

    @property
    def size(self) -> int:
        return len(self.docs)

    def idf(self, term: str) -> float:
        posting = self.postings.get(term)
        df = len(posting.docs) if posting else 0
        return math.log(1 + (self.size - df + 0.5) / (df + 0.5))

    def with_term(self, term: str, mask: int = -1) -> set[int]:
        """The docs holding `term` in any of the fields of `mask`."""
        posting = self.postings.get(term)
        if posting is None:
            return set()
        if mask == -1:
            return set(posting.docs)
        return {doc for doc, bits in zip(posting.docs, posting.masks, strict=True) if bits & mask}

    def with_keyword(self, keyword: Sequence[str], mask: int = -1) -> set[int]:
        """The docs holding a keyword's terms: one term anywhere in `mask`, or a phrase's terms
        near each other in one field of `mask`."""
        if not keyword:
            return set()
        found = self.with_term(keyword[0], mask)
        for term in keyword[1:]:
            found &= self.with_term(term, mask)
            if not found:
                return found
        if len(keyword) == 1:
            return found
        names = [name for name in KEPT_FIELDS if BIT[name] & mask]
        return {
            doc
            for doc in found
            if any(text.near(keyword, self.docs[doc].field(name)) for name in names)
        }

    def scores(self, terms: Iterable[str], docs: Iterable[int]) -> dict[int, float]:
        """BM25F of each of `docs` for the query `terms` (each distinct term counted once)."""
        wanted = set(docs)
        totals = dict.fromkeys(wanted, 0.0)
        for term in dict.fromkeys(terms):
            posting = self.postings.get(term)
            if posting is None:
                continue
            idf = self.idf(term)
            for doc, weight in zip(posting.docs, posting.weights, strict=True):
                if doc in wanted:
                    totals[doc] += idf * weight / (K1 + weight)
        return totals

    def in_categories(self, names: Iterable[str]) -> set[int]:
        """The docs of any of the categories (casefolded names)."""
        found: set[int] = set()
        for name in names:
            found.update(self.by_category.get(name, ()))
        return found

    def df(self, term: str) -> int:
        posting = self.postings.get(term)
        return len(posting.docs) if posting else 0

    def correction(self, word: str) -> str | None:
        """The clean catalog word `word` most likely misspells, or None: the words within one
        edit (two for words of eight letters or more; a swap of neighbours is one), the most
        common first. A word the catalog knows is corrected only when it is rare (in at most
        RARE products) and its correction is at least COMMONER times as common: catalogs
        misspell too ("matress")."""
        if not 4 <= len(word) <= MAX_CORRECTED or not word.isalpha():
            return None
        known = self.df(text.stem(word))
        if known > RARE:
            return None
        wanted = _trigrams(word)
        shared: dict[int, int] = {}
        for gram in wanted:
            for position in self.grams.get(gram, ()):
                shared[position] = shared.get(position, 0) + 1
        allowed = 2 if len(word) >= 8 else 1
        best: tuple[int, int, str] | None = None
        for position, count in shared.items():
            candidate = self.vocabulary[position]
            # More letters apart than edits allowed, or too few trigrams shared: not a spelling
            # of it (and no edit distance computed: a word's trigrams meet thousands of words).
            if abs(len(candidate) - len(word)) > allowed or count / len(wanted) < SIMILARITY:
                continue
            if candidate == word:
                continue
            distance = _edits(word, candidate)
            common = self.df(text.stem(candidate))
            if distance > allowed or text.stem(candidate) == text.stem(word):
                continue
            if known and common < COMMONER * known:
                continue
            ranked = (distance, -common, candidate)
            if best is None or ranked < best:
                best = ranked
        return best[2] if best else None


def _trigrams(word: str) -> set[str]:
    padded = f"  {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def _edits(first: str, second: str) -> int:
    """Damerau-Levenshtein distance (adjacent swaps count one), for short words."""
    previous2: list[int] = []
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, start=1):
        current = [i] + [0] * len(second)
        for j, b in enumerate(second, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b))
            if i > 1 and j > 1 and a == second[j - 2] and first[i - 2] == b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


# --- Building ----------------------------------------------------------------------------------


def _product_rows() -> Iterable[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.id, p.title, p.tags, p.brand, p.category_l1, p.category_l2, "
            "p.description, p.price_usd, p.regions, COALESCE(s.gmv, 0) "
            "FROM catalog_product p LEFT JOIN (SELECT product_id, SUM(gmv_usd) AS gmv "
            "FROM catalog_video GROUP BY product_id) s ON s.product_id = p.id ORDER BY p.id"
        )
        yield from cursor.fetchall()


def _strings(value: object) -> list[str]:
    """A JSON list column as read by a raw cursor: a list on PostgreSQL, text on SQLite."""
    if isinstance(value, str):
        import orjson

        value = orjson.loads(value)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _clean_words(title: str) -> list[str]:
    """A title's whole words: the last word of a title cut short ("... Wif...") is a fragment."""
    found = text.words(title)
    if _TRUNCATED.search(title) and found:
        found.pop()
    return found


def build() -> Index:
    docs: list[Doc] = []
    descriptions: list[tuple[str, ...]] = []  # counted, then let go
    field_lengths = dict.fromkeys(FIELDS, 0)
    known: set[str] = set()
    shared: dict[Any, Any] = {}  # equal values held once: categories, regions, short fields

    def once(value: Any) -> Any:
        return shared.setdefault(value, value)

    for row in _product_rows():
        product_id, title, tags, brand, l1, l2, description, price, regions, sales = row
        tag_list = _strings(tags)
        fields = (
            tuple(text.terms(str(title or ""))),
            once(tuple(text.terms(" . ".join(tag_list)))),
            once(tuple(text.terms(str(brand or "")))),
            once(tuple(text.terms(f"{l1 or ''} . {l2 or ''}"))),
        )
        descriptions.append(tuple(text.terms(str(description or ""))[:DESCRIPTION_TERMS]))
        for name, terms in zip(KEPT_FIELDS, fields, strict=True):
            field_lengths[name] += len(terms)
        field_lengths["description"] += len(descriptions[-1])
        for source in (str(title or ""), " ".join(tag_list), str(brand or "")):
            known.update(word for word in _clean_words(source) if word.isalpha() and len(word) > 2)
        names = (name.casefold() for name in (l1, l2) if isinstance(name, str))
        docs.append(
            Doc(
                product_id=int(str(product_id)),
                fields=fields,
                categories=once(frozenset(names)),
                price=float(price) if isinstance(price, Decimal | float | int | str) else None,
                regions=once(frozenset(_strings(regions))),
                sales=float(str(sales)),
            )
        )
    averages = {name: max(total / max(len(docs), 1), 1.0) for name, total in field_lengths.items()}
    postings: dict[str, Posting] = {}
    for position, doc in enumerate(docs):
        weights: dict[str, float] = {}
        masks: dict[str, int] = {}
        every = zip(FIELDS, (*doc.fields, descriptions[position]), strict=True)
        for name, terms in every:
            if not terms:
                continue
            norm = WEIGHTS[name] / (1 - B + B * len(terms) / averages[name])
            for term in terms:
                if term in text.STOP_WORDS:
                    continue
                weights[term] = weights.get(term, 0.0) + norm
                masks[term] = masks.get(term, 0) | BIT[name]
        for term, weight in weights.items():
            posting = postings.get(term)
            if posting is None:
                posting = postings[term] = Posting([], [], [])
            posting.docs.append(position)
            posting.weights.append(weight)
            posting.masks.append(masks[term])
    vocabulary = sorted(known)
    grams: dict[str, list[int]] = {}
    for position, word in enumerate(vocabulary):
        for gram in _trigrams(word):
            grams.setdefault(gram, []).append(position)
    by_category: dict[str, list[int]] = {}
    for position, doc in enumerate(docs):
        for name in doc.categories:
            by_category.setdefault(name, []).append(position)
    return Index(docs, postings, vocabulary, grams, by_category)


def catalog_version() -> str:
    """Changes whenever a product is added, removed, or saved."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*), MAX(updated_at) FROM catalog_product")
        count, latest = cursor.fetchone()
    return f"{count}:{latest}"


_current: tuple[str, Index] | None = None
# One build at a time: the threads of a web worker that meet a new catalog together wait for
# one build rather than each making its own.
_lock = threading.Lock()


def current() -> Index:
    """This process's index of the current catalog."""
    global _current
    version = cached(VERSION_KEY, VERSION_CHECK_S, catalog_version, alias="local")
    if _current is None or _current[0] != version:
        with _lock:
            if _current is None or _current[0] != version:
                _current = (version, build())  # one catalog per process: the newest only
    return _current[1]
