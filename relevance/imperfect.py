"""What an imperfect resolution costs: `RELEVANCE_IMPERFECT=long-keyword,no-categories` serves
the labelled queries with their resolutions made worse on purpose, as language models write
them, so that docs/relevance_changes.md can report how much of an answer survives a model's
habits. Judging is unchanged: the same rules accept the same products.

- `long-keyword`: the first keyword is the normalized query up to its first joining word
  ("noise cancelling headphones" of "noise cancelling headphones for travel"): one long
  keyword where the model might have written its parts.
- `no-categories`: the model names no category.
- `shopping-word`: "best" joins the first keyword ("best running shoes").
"""

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from relevance import switches
from relevance.judging import Query

Resolution = dict[str, Any]

# Where the first phrase of a normalized query ends: the words that join what it names to what
# it is for, made of, priced at or ruled out by.
_JOINING = re.compile(
    r"\b(?:for|with|without|under|below|above|between|in|on|to|from|near|not|no|but)\b"
)


def _long_keyword(resolution: Resolution) -> Resolution:
    phrase = _JOINING.split(str(resolution.get("normalized_query") or "").lower())[0]
    phrase = phrase.strip(" ,.;:-")
    keywords = list(resolution.get("keywords") or [])
    if not phrase or not keywords:
        return resolution
    return resolution | {"keywords": [phrase, *keywords[1:]]}


def _no_categories(resolution: Resolution) -> Resolution:
    return resolution | {"categories": []}


def _shopping_word(resolution: Resolution) -> Resolution:
    keywords = list(resolution.get("keywords") or [])
    if not keywords:
        return resolution
    return resolution | {"keywords": [f"best {keywords[0]}", *keywords[1:]]}


MODES: dict[str, Callable[[Resolution], Resolution]] = {
    "long-keyword": _long_keyword,
    "no-categories": _no_categories,
    "shopping-word": _shopping_word,
}


def chosen() -> list[str]:
    """The modes RELEVANCE_IMPERFECT names; an unknown name is an error."""
    return switches.chosen("RELEVANCE_IMPERFECT", MODES)


def made(query: Query, names: list[str]) -> Query:
    """`query` with its resolution made imperfect in each of the named ways, in their order."""
    resolution = query.resolution
    for name in names:
        resolution = MODES[name](resolution)
    return (
        query
        if resolution is query.resolution
        else dataclasses.replace(query, resolution=resolution)
    )
