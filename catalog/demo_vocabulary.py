"""The demo catalog's vocabulary: categories, brands, product types and the words that
describe them, copywriting and creators' names, read from demo_data/vocabulary.json; and the
random draws the generator shares."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

_T = TypeVar("_T")

# Where the demo's shop, images and videos live (never fetched: example domains).
SHOP_URL: Final = "https://demo-shop.example"
IMAGE_URL: Final = "https://img.demo-shop.example"
VIDEO_URL: Final = "https://video.demo-shop.example"
PLATFORM_URL: Final = "https://platform.demo-shop.example"


@dataclass(frozen=True, slots=True)
class ProductType:
    """One kind of product in a category, with the words that can describe it.

    A title is ``[brand] [lead] [features...] noun [suffix]``: ``nouns`` are interchangeable
    names for the product (all singular, or all plural when ``plural``); ``lead`` is a model name,
    size or count; each entry of ``features`` is a group of mutually exclusive options (at most
    one option per group, kept in group order); ``suffix`` is a size, count, fit or colour placed
    after the noun. Feature options become tags; lead and suffix words do not.
    """

    nouns: tuple[str, ...]
    price: tuple[float, float]
    tags: tuple[str, ...]
    lead: tuple[str, ...] = ()
    features: tuple[tuple[str, ...], ...] = ()
    suffix: tuple[str, ...] = ()
    plural: bool = False
    risk: tuple[float, float, float] | None = None
    openers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Category:
    """A two-level category with its brands, product vocabulary and copywriting."""

    l1: str
    l2: str
    brands: tuple[str, ...]
    types: tuple[ProductType, ...]
    personas: tuple[tuple[str, str], ...]
    # Description openers; placeholders: {Subject}, {subject}, {is}.
    openers: tuple[str, ...]
    # One sentence per feature option, used to build truthful descriptions.
    blurbs: Mapping[str, str]
    closers: tuple[str, ...]
    # Words creators in this niche put in their usernames ("milesrun", "glow.with.ana").
    handle_words: tuple[str, ...]
    # Channel-style display names; {first} is the creator's first name.
    channels: tuple[str, ...]
    risk: tuple[float, float, float] = (1.0, 0.0, 0.0)


# The vocabulary of the demo catalog (categories, brands, product types and their words,
# copywriting, creators' names) is data: demo_data/vocabulary.json, read once at import.
VOCABULARY: Final = Path(__file__).with_name("demo_data") / "vocabulary.json"


def _product_type(data: dict[str, Any]) -> ProductType:
    return ProductType(
        nouns=tuple(data["nouns"]),
        price=(data["price"][0], data["price"][1]),
        tags=tuple(data["tags"]),
        lead=tuple(data["lead"]),
        features=tuple(tuple(group) for group in data["features"]),
        suffix=tuple(data["suffix"]),
        plural=data["plural"],
        risk=tuple(data["risk"]) if data["risk"] else None,
        openers=tuple(data["openers"]),
    )


def _category(data: dict[str, Any]) -> Category:
    return Category(
        l1=data["l1"],
        l2=data["l2"],
        brands=tuple(data["brands"]),
        types=tuple(_product_type(item) for item in data["types"]),
        personas=tuple((persona, age) for persona, age in data["personas"]),
        openers=tuple(data["openers"]),
        blurbs=dict(data["blurbs"]),
        closers=tuple(data["closers"]),
        handle_words=tuple(data["handle_words"]),
        channels=tuple(data["channels"]),
        risk=tuple(data["risk"]),
    )


_DATA: Final = json.loads(VOCABULARY.read_text(encoding="utf-8"))


CATEGORIES: Final[tuple[Category, ...]] = tuple(_category(item) for item in _DATA["categories"])


FIRST_NAMES: Final[tuple[str, ...]] = tuple(_DATA["first_names"])


LAST_NAMES: Final[tuple[str, ...]] = tuple(_DATA["last_names"])


def pick_one(rng: random.Random, options: Sequence[_T]) -> _T:
    """Like ``rng.choice`` but cheaper; the catalog is generated in a hot loop."""
    return options[int(rng.random() * len(options))]


def lognormal(rng: random.Random, median: float, sigma: float) -> float:
    return median * math.exp(rng.gauss(0.0, sigma))
