"""Deterministic demo-catalog generator used by the ``seed_demo`` management command.

It produces believable product records (titles, prices, descriptions, tags, regions, target
audiences) and the short creator videos that sell them, in the catalog import format. The output
depends only on ``(products, seed, now)``: a private ``random.Random`` is used throughout, so the
same arguments always give identical records. Every brand and creator name is invented.

Pure standard library on purpose: no Django imports, so it can be used and tested anywhere."""

from __future__ import annotations

import functools
import math
import random
from bisect import bisect
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from itertools import accumulate
from typing import Any, Final, NamedTuple

from catalog.demo_creators import DemoCreator, make_creators, make_videos
from catalog.demo_vocabulary import (
    CATEGORIES,
    IMAGE_URL,
    SHOP_URL,
    Category,
    ProductType,
    pick_one,
)

__all__ = ["generate_catalog"]


FIRST_PRODUCT_ID: Final = 100001


REGIONS: Final = ("US", "GB", "DE", "FR", "CA", "AU", "JP", "SG")


# Probability that a product (not sold everywhere) is listed in each region.
REGION_ODDS: Final = (0.9, 0.45, 0.3, 0.25, 0.45, 0.3, 0.12, 0.12)


RISK_LEVELS: Final = ("low", "medium", "high")


MIN_TITLE_WORDS: Final = 3


MAX_TITLE_WORDS: Final = 9


MAX_TAGS: Final = 6


GALLERY_SIZE_WEIGHTS: Final = (0.08, 0.17, 0.25, 0.25, 0.25)


_GALLERY_SIZE_CUM: Final = tuple(accumulate(GALLERY_SIZE_WEIGHTS))


class _Title(NamedTuple):
    """A generated title and the parts it was built from (descriptions and tags reuse them)."""

    text: str
    lead: str | None
    features: tuple[str, ...]
    noun: str
    suffix: str | None


_KEEP_CASE: Final = frozenset({"Bluetooth", "Wi-Fi", "Earl", "Grey", "Dutch", "ASTM"})


def generate_catalog(*, products: int, seed: int = 7, now: datetime) -> Iterator[dict[str, Any]]:
    """Yield `products` product records in the import format.

    Deterministic for ``(products, seed, now)``; ``now`` must be timezone-aware (it is converted
    to UTC) and video ``published_at`` values fall within the 120 days before it.
    """
    if products < 0:
        raise ValueError("products must be >= 0")
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    # Internally `now` is naive UTC without microseconds: cheap to format as "...Z".
    return _generate(products, seed, now.astimezone(UTC).replace(microsecond=0, tzinfo=None))


def _generate(products: int, seed: int, now: datetime) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    creators = make_creators(rng, max(40, products // 8))
    by_category: list[list[DemoCreator]] = [[] for _ in CATEGORIES]
    for creator in creators:
        for niche in creator.niches:
            by_category[niche].append(creator)
    # Larger brands sell more: a gentle power-law over each category's brand list.
    brand_cum_weights = [
        tuple(accumulate(1.0 / math.sqrt(rank + 1) for rank in range(len(cat.brands))))
        for cat in CATEGORIES
    ]
    used_titles: set[str] = set()
    for offset in range(products):
        cat_index = rng.randrange(len(CATEGORIES))
        yield _make_product(
            rng,
            product_id=FIRST_PRODUCT_ID + offset,
            cat_index=cat_index,
            brand_cum_weights=brand_cum_weights[cat_index],
            creators=creators,
            niche_creators=by_category[cat_index],
            used_titles=used_titles,
            now=now,
        )


def _make_product(
    rng: random.Random,
    *,
    product_id: int,
    cat_index: int,
    brand_cum_weights: Sequence[float],
    creators: Sequence[DemoCreator],
    niche_creators: Sequence[DemoCreator],
    used_titles: set[str],
    now: datetime,
) -> dict[str, Any]:
    cat = CATEGORIES[cat_index]
    ptype = pick_one(rng, cat.types)
    brand: str | None = None
    if rng.random() >= 0.03:
        brand = cat.brands[bisect(brand_cum_weights, rng.random() * brand_cum_weights[-1])]
    title = _make_title(rng, ptype, brand)
    for _ in range(8):  # (brand, title) pairs should be mostly unique
        if title.text not in used_titles:
            break
        title = _make_title(rng, ptype, brand)
    used_titles.add(title.text)

    price, original = _make_prices(rng, ptype)
    persona, age = pick_one(rng, cat.personas)
    page = f"{IMAGE_URL}/p/{product_id}"
    gallery_size = bisect(_GALLERY_SIZE_CUM, rng.random() * _GALLERY_SIZE_CUM[-1])
    return {
        "id": product_id,
        "title": title.text,
        "brand": brand,
        "price_usd": price,
        "original_price_usd": original,
        "main_image": None if rng.random() < 0.02 else f"{page}/main.jpg",
        "gallery": [f"{page}/{n}.jpg" for n in range(1, gallery_size + 1)],
        "category_l1": cat.l1,
        "category_l2": cat.l2,
        "url": f"{SHOP_URL}/p/{product_id}",
        "description": _make_description(rng, cat, ptype, title, brand),
        "tags": _make_tags(ptype, title),
        "regions": _make_regions(rng),
        "risk_level": _pick_risk(rng, ptype.risk or cat.risk),
        "target_audience": {"persona": persona, "age": age},
        "videos": make_videos(
            rng,
            product_id=product_id,
            price=price,
            creators=creators,
            niche_creators=niche_creators,
            now=now,
        ),
    }


@functools.cache
def _word_count(part: str | None) -> int:
    return len(part.split()) if part else 0


def _make_title(rng: random.Random, ptype: ProductType, brand: str | None) -> _Title:
    """Build ``[brand] [lead] [features] noun [suffix]`` with 3-9 words."""
    noun = pick_one(rng, ptype.nouns)
    lead = pick_one(rng, ptype.lead) if ptype.lead and rng.random() < 0.55 else None
    picks: list[str | None] = [
        pick_one(rng, group) if rng.random() < 0.6 else None for group in ptype.features
    ]
    suffix = pick_one(rng, ptype.suffix) if ptype.suffix and rng.random() < 0.4 else None

    def words() -> int:
        return sum(map(_word_count, (brand, lead, *picks, noun, suffix)))

    count = words()
    if count < MIN_TITLE_WORDS:  # e.g. "Kettleby Wok": add a feature, then a lead, then a suffix
        for index, group in enumerate(ptype.features):
            if picks[index] is None and words() < MIN_TITLE_WORDS:
                picks[index] = pick_one(rng, group)
        if lead is None and ptype.lead and words() < MIN_TITLE_WORDS:
            lead = pick_one(rng, ptype.lead)
        if suffix is None and ptype.suffix and words() < MIN_TITLE_WORDS:
            suffix = pick_one(rng, ptype.suffix)
    elif count > MAX_TITLE_WORDS:  # drop the suffix, then the lead, then trailing features
        suffix = None
        if words() > MAX_TITLE_WORDS:
            lead = None
        for index in reversed(range(len(picks))):
            if words() <= MAX_TITLE_WORDS:
                break
            picks[index] = None

    features = tuple(filter(None, picks))
    text = " ".join(filter(None, (brand, lead, *features, noun, suffix)))
    return _Title(text, lead, features, noun, suffix)


def _retail_cents(raw: float, rng: random.Random) -> int:
    """Round a raw price to a shelf price such as 7.99, 24.49, 89.99, 129.99 or 40.00."""
    whole = max(1, int(raw))
    if whole >= 100:
        whole = whole // 10 * 10 + 9  # 134 -> 139
    elif whole >= 20:
        whole = whole // 5 * 5 + 4  # 82 -> 84, 87 -> 89
    roll = rng.random()
    if roll < 0.12:
        return (whole + 1) * 100  # a round 40.00
    if roll < 0.26 and whole < 100:
        return whole * 100 + 49
    if roll < 0.33:
        return whole * 100 + 95
    return whole * 100 + 99


def _make_prices(rng: random.Random, ptype: ProductType) -> tuple[float, float | None]:
    low, high = ptype.price
    price_cents = _retail_cents(math.exp(rng.uniform(math.log(low), math.log(high))), rng)
    if rng.random() >= 0.45:
        return price_cents / 100, None
    original_cents = 0
    for _ in range(6):
        discount = rng.uniform(0.10, 0.50)
        original_cents = _retail_cents(price_cents / 100 / (1.0 - discount), rng)
        if 0.09 <= 1.0 - price_cents / original_cents <= 0.52:
            break
    else:  # rounding kept missing the band: fall back to a plain 20% markdown
        original_cents = math.ceil(price_cents / 0.8 / 100) * 100 - 1
    return price_cents / 100, original_cents / 100


@functools.cache
def _sentence_case(phrase: str) -> str:
    """Lower-case title words for use inside a sentence, keeping acronyms and proper nouns."""

    def lower(word: str) -> str:
        if word in _KEEP_CASE:
            return word
        parts = word.split("-")
        return "-".join(
            p.lower() if len(p) > 1 and p[0].isupper() and p[1:].islower() else p for p in parts
        )

    return " ".join(lower(word) for word in phrase.split())


def _make_description(
    rng: random.Random, cat: Category, ptype: ProductType, title: _Title, brand: str | None
) -> str:
    lead = title.lead
    if lead and lead.endswith(("-Pack", " IU", " CFU")):
        lead = None  # pack sizes and doses read oddly inside a sentence
    elif lead and lead[0].isdigit():
        lead = _sentence_case(lead)  # "10-Piece" -> "10-piece"; model names keep their case
    phrase = " ".join(filter(None, (lead, _sentence_case(" ".join((*title.features, title.noun))))))
    if brand:
        subject = f"the {brand} {phrase}"
    else:
        subject = f"{'these' if ptype.plural else 'this'} {phrase}"
    opener = pick_one(rng, ptype.openers or cat.openers)
    sentences = [
        opener.format(
            Subject=subject[0].upper() + subject[1:],
            subject=subject,
            **{"is": "are" if ptype.plural else "is"},
        )
    ]
    blurbs = [cat.blurbs[f] for f in title.features if f in cat.blurbs]
    rng.shuffle(blurbs)
    sentences.extend(blurbs[:2])
    if len(sentences) == 1 or (len(sentences) == 2 and rng.random() < 0.35):
        sentences.append(pick_one(rng, cat.closers))
    return " ".join(sentences)


def _make_tags(ptype: ProductType, title: _Title) -> list[str]:
    """Type keywords first, then the title's feature words; 2-6 unique lowercase tags."""
    tags: list[str] = []
    for word in (*ptype.tags, *title.features):
        tag = word.lower()
        if tag not in tags and not tag[0].isdigit():
            tags.append(tag)
    return tags[:MAX_TAGS]


def _pick_risk(rng: random.Random, weights: tuple[float, float, float]) -> str:
    """Pick "low"/"medium"/"high" with the given (normalised) probabilities."""
    roll = rng.random() * sum(weights)
    if roll < weights[0]:
        return RISK_LEVELS[0]
    return RISK_LEVELS[1] if roll < weights[0] + weights[1] else RISK_LEVELS[2]


def _make_regions(rng: random.Random) -> list[str]:
    if rng.random() < 0.08:
        return []  # sold everywhere
    regions = [code for code, odds in zip(REGIONS, REGION_ODDS, strict=True) if rng.random() < odds]
    if not regions:
        regions = ["US"]
    while len(regions) > 6:
        regions.remove(rng.choice([code for code in regions if code != "US"]))
    return regions
