"""A keyword of three words or more read as the phrases the catalog writes, by the word tiers of
retrieval (catalog/search.py: strict, narrow, fuzzy).

A model may answer one long keyword where the titles write its words apart: "noise cancelling
headphones" for "Headphones with Active Noise Cancelling", "yonex badminton racket" for "Yonex
Astrox 99 Badminton Racket", "baby diapers medium size" for "Baby Taped Diapers, Medium Size".
Asked whole, the keyword finds by every keyword only the titles that hold its words side by
side, and the best products wait for the partial tier, behind those that happen to repeat the
model's phrase. Unless at least TOGETHER products hold it whole (the catalog writes it so), such
a keyword is read as its phrases: two neighbouring words that TOGETHER products hold side by side
or as one word ("noise cancelling", "badminton racket", "micro sd": "MicroSD") stay one keyword,
and every other word is a keyword of its own ("yonex"); where two pairs overlap ("noise
cancelling", "cancelling headphones") the one more products hold wins. A keyword that names a
measure or a model ("1.5 ton split ac", "redmi note 12 pro": a digit in it) or joins its words
with another ("board games for kids and adults") stays whole: measures and audiences are read
from it as it is. The partial tier and those after it read the keyword whole: its last word is
the thing it names (catalog/heads.py), and a phrase before it ("alcohol free") names none.
"""

from collections.abc import Sequence
from itertools import pairwise

from catalog import fulltext, text

# How many products must hold two words side by side for them to stay one phrase.
TOGETHER = 3
# The most words of a keyword always read whole.
LONGEST_WHOLE = 2


def read(keywords: Sequence[str]) -> list[str]:
    """The keywords, each long one as its phrases (in their order), none twice."""
    found: list[str] = []
    for keyword in keywords:
        found.extend(phrases(keyword))
    return list(dict.fromkeys(found))


def phrases(keyword: str) -> list[str]:
    """A keyword as the phrases the catalog writes: `keyword` itself when it is short, names a
    measure or a model, or holds a word that joins others."""
    words = text.words(keyword)
    if (
        len(words) <= LONGEST_WHOLE
        or any(word in text.STOP_WORDS for word in words)
        or any(char.isdigit() for char in keyword)
    ):
        return [keyword]
    stems = [text.stem(word) for word in words]
    if fulltext.documents_with(stems, TOGETHER) >= TOGETHER:
        return [keyword]  # the catalog writes it so
    held = [
        fulltext.documents_with((first, second), TOGETHER)
        + fulltext.documents_with(text.stem(words[at] + words[at + 1]), TOGETHER)
        for at, (first, second) in enumerate(pairwise(stems))
    ]
    return [" ".join(words[start:end]) for start, end in _spans(held)]


def _spans(held: list[int]) -> list[tuple[int, int]]:
    """The words' spans, pairs of neighbours held together by TOGETHER products or more, the
    rest alone: the most words in pairs, then the pairs held most (held[i]: the products
    holding words i and i + 1 side by side)."""
    # best[i]: (words in pairs, products holding the pairs, spans) for the words from i on.
    best: list[tuple[int, int, list[tuple[int, int]]]] = [(0, 0, [])] * (len(held) + 2)
    for start in range(len(held), -1, -1):
        paired, products, spans = best[start + 1]
        options = [(paired, products, [(start, start + 1), *spans])]
        if start < len(held) and held[start] >= TOGETHER:
            paired, products, spans = best[start + 2]
            options.append((paired + 2, products + held[start], [(start, start + 2), *spans]))
        best[start] = max(options, key=lambda option: (option[0], option[1]))
    return best[0][2]
