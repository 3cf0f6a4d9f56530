"""The demo catalog's creators and their short videos: usernames from their niches, followers,
videos spread over the last months, some of them recent."""

from __future__ import annotations

import math
import random
from bisect import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import accumulate
from typing import Any, Final

from catalog.demo_vocabulary import (
    CATEGORIES,
    FIRST_NAMES,
    IMAGE_URL,
    LAST_NAMES,
    PLATFORM_URL,
    VIDEO_URL,
    Category,
    lognormal,
    pick_one,
)

VIDEO_WINDOW_DAYS: Final = 120


RECENT_DAYS: Final = 30


RECENT_SHARE: Final = 0.4


# How many videos a product gets: 0..5, weighted so most have 1-3.
VIDEO_COUNT_WEIGHTS: Final = (0.12, 0.28, 0.27, 0.18, 0.09, 0.06)


_VIDEO_COUNT_CUM: Final = tuple(accumulate(VIDEO_COUNT_WEIGHTS))


@dataclass(frozen=True, slots=True)
class DemoCreator:
    record: dict[str, Any]
    niches: tuple[int, ...]
    followers: int


def _slug_words(text: str) -> list[str]:
    return [
        "".join(ch for ch in word.lower() if ch.isascii() and ch.isalnum())
        for word in text.split()
        if any(ch.isalnum() for ch in word)
    ]


def _username_base(
    rng: random.Random, first: str, last: str, channel: str | None, cat: Category
) -> str:
    f, l_ = first.lower(), last.lower()
    if channel is not None:
        words = _slug_words(channel)
        return rng.choice((".", "_", "")).join(words)
    word = rng.choice(cat.handle_words)
    return rng.choice(
        (
            f"{f}{l_}",
            f"{f}.{l_}",
            f"{f}_{l_}",
            f"{f}{word}",
            f"{f}.{word}",
            f"{word}with{f}",
            f"{word}_{f}",
            f"the{f}{l_}",
            f"{f}{l_[0]}.{word}",
        )
    )


def _make_username(rng: random.Random, base: str, taken: set[str]) -> str:
    name = base[:20].strip("._")
    if len(name) < 4:
        name = f"{name}{rng.randrange(100, 1000)}"
    candidate = name
    while candidate in taken:
        candidate = f"{name}{rng.randrange(10, 10000)}"
    taken.add(candidate)
    return candidate


def _make_followers(rng: random.Random) -> int:
    """Heavy-tailed: most creators have 2k-200k followers, about 1.5% have 1M-5M."""
    if rng.random() < 0.015:
        return int(math.exp(rng.uniform(math.log(1_000_000), math.log(5_000_000))))
    return int(min(950_000, max(800, lognormal(rng, 22_000.0, 1.1))))


def _make_niches(rng: random.Random, primary: int) -> tuple[int, ...]:
    count = rng.choices((1, 2, 3), weights=(0.5, 0.35, 0.15))[0]
    niches = [primary]
    while len(niches) < count:
        same_l1 = [
            i
            for i, cat in enumerate(CATEGORIES)
            if cat.l1 == CATEGORIES[primary].l1 and i not in niches
        ]
        pool = same_l1 if same_l1 and rng.random() < 0.5 else range(len(CATEGORIES))
        pick = rng.choice(pool)
        if pick not in niches:
            niches.append(pick)
    return tuple(niches)


def make_creators(rng: random.Random, count: int) -> list[DemoCreator]:
    """Generate the creator pool once; every category is some creators' primary niche."""
    creators: list[DemoCreator] = []
    taken: set[str] = set()
    for index in range(count):
        primary = index % len(CATEGORIES)
        cat = CATEGORIES[primary]
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        channel = rng.choice(cat.channels).format(first=first) if rng.random() < 0.3 else None
        display_name = channel or f"{first} {last}"
        username = _make_username(rng, _username_base(rng, first, last, channel, cat), taken)
        followers = _make_followers(rng)
        avatar = None if rng.random() < 0.1 else f"{IMAGE_URL}/c/{username}.jpg"
        record: dict[str, Any] = {
            "username": username,
            "display_name": display_name,
            "avatar": avatar,
            "followers": followers,
        }
        creators.append(DemoCreator(record, _make_niches(rng, primary), followers))
    return creators


def _pick_creator(
    rng: random.Random,
    creators: Sequence[DemoCreator],
    niche_creators: Sequence[DemoCreator],
    already: set[str],
) -> DemoCreator:
    creator = creators[0]
    for _ in range(5):  # prefer a creator not yet on this product
        pool = niche_creators if niche_creators and rng.random() < 0.8 else creators
        creator = pick_one(rng, pool)
        if creator.record["username"] not in already:
            break
    return creator


def _video_age_seconds(rng: random.Random) -> int:
    """~40% of videos are from the last 30 days, the rest from 30-120 days back."""
    if rng.random() < RECENT_SHARE:
        low, high = 1, RECENT_DAYS * 86_400
    else:
        low, high = RECENT_DAYS * 86_400, VIDEO_WINDOW_DAYS * 86_400 - 1
    return low + int(rng.random() * (high - low + 1))


def make_videos(
    rng: random.Random,
    *,
    product_id: int,
    price: float,
    creators: Sequence[DemoCreator],
    niche_creators: Sequence[DemoCreator],
    now: datetime,
) -> list[dict[str, Any]]:
    """0-5 videos whose stats are consistent: orders <= views, gmv <= orders * price."""
    count = bisect(_VIDEO_COUNT_CUM, rng.random() * _VIDEO_COUNT_CUM[-1])
    price_cents = round(price * 100)
    # Cheaper items convert better: ~3% at $8, ~0.3% at $250.
    base_rate = 0.03 * (price / 8.0) ** -0.67
    gauss, uniform, roll = rng.gauss, rng.uniform, rng.random  # hot loop
    videos: list[dict[str, Any]] = []
    seen: set[str] = set()
    for n in range(1, count + 1):
        creator = _pick_creator(rng, creators, niche_creators, seen)
        username: str = creator.record["username"]
        seen.add(username)
        task_id = f"v-{product_id}-{n}"
        reach = min(3.0, max(0.05, 0.3 * math.exp(gauss(0.0, 0.9))))  # views per follower
        views = max(200, round(creator.followers * reach))
        rate = min(0.04, max(0.0005, base_rate * math.exp(gauss(0.0, 0.45))))
        orders = round(views * rate)
        # Discount codes: revenue is 85-99.5% of list price, floored to the cent.
        gmv_cents = math.floor(orders * price_cents * uniform(0.85, 0.995))
        published = now - timedelta(seconds=_video_age_seconds(rng))
        videos.append(
            {
                "task_id": task_id,
                "creator": dict(creator.record),
                "thumbnail": None if roll() < 0.05 else f"{IMAGE_URL}/v/{task_id}.jpg",
                "video_url": None if roll() < 0.03 else f"{VIDEO_URL}/v/{task_id}.mp4",
                "platform_video_url": (
                    None if roll() < 0.05 else f"{PLATFORM_URL}/@{username}/video/{task_id}"
                ),
                "duration_s": int(min(180, max(8, 30.0 * math.exp(gauss(0.0, 0.55))))),
                "gmv_usd": gmv_cents / 100,
                "orders": orders,
                "views": views,
                # `now` is naive UTC without microseconds, so this is "YYYY-MM-DDTHH:MM:SSZ".
                "published_at": published.isoformat() + "Z",
            }
        )
    return videos
