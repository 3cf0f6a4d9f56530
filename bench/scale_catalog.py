"""Catalogs of any size made of variants of the shared real catalog, and the shoppers' queries
asked of them (`make bench-scale`).

Each variant of a real product keeps its words, categories and regions: its brand (the title's
first word) is perturbed into another plausible brand, its sizes and counts (the title's
numbers) change, its price moves by up to a quarter either way, and one in four variants of a
product with creator videos has them too, under new task ids. Variant 0 is the real product
itself. Ids run from 1 up, so catalogs of several sizes share their first products.

The real catalog is not part of the repository: RELEVANCE_CATALOG names it, else it is read from
shared/relevance/catalog.jsonl beside the checkout (as `make relevance` does).
"""

import os
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from bench.common import title_words

ROOT = Path(__file__).resolve().parent.parent
REAL = Path(
    os.environ.get("RELEVANCE_CATALOG", ROOT.parent / "shared" / "relevance" / "catalog.jsonl")
)
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")
_SYLLABLES = ("ka", "lo", "vi", "ter", "mon", "ra", "zu", "pex", "dor", "ni", "sol", "bri")


def real_products() -> list[dict[str, Any]]:
    """The real catalog's products, each once (the last line of an id wins), in file order."""
    if not REAL.exists():
        raise SystemExit(f"the real catalog is missing: {REAL} (set RELEVANCE_CATALOG)")
    products: dict[int, dict[str, Any]] = {}
    with REAL.open("rb") as lines:
        for line in lines:
            if line.strip():
                record = orjson.loads(line)
                products.pop(record["id"], None)
                products[record["id"]] = record
    return list(products.values())


def _brand(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()


def _numbers(title: str, rng: random.Random) -> str:
    def moved(found: re.Match[str]) -> str:
        value = float(found.group(0)) * rng.choice((0.5, 0.75, 1.5, 2, 3))
        return f"{value:g}" if "." in found.group(0) else str(max(1, round(value)))

    return _NUMBER.sub(moved, title)


def variant(record: dict[str, Any], number: int, new_id: int, rng: random.Random) -> dict:
    """Variant `number` of a real product, under `new_id`."""
    product = {**record, "id": new_id}
    if number == 0:
        product["videos"] = [
            {**video, "task_id": f"{video['task_id']}-{new_id}"}
            for video in record.get("videos", [])
        ]
        return product
    words = record["title"].split(" ", 1)
    title = _brand(rng) + (" " + _numbers(words[1], rng) if len(words) > 1 else "")
    product["title"] = title[:300]
    if record.get("brand"):
        product["brand"] = _brand(rng)
    for field in ("price_usd", "original_price_usd"):
        if record.get(field) is not None:
            product[field] = round(float(record[field]) * rng.uniform(0.75, 1.25), 2)
    product["url"] = f"https://shop.example.com/p/{new_id}"
    videos = record.get("videos") or []
    product["videos"] = (
        [{**video, "task_id": f"{video['task_id']}-{new_id}"} for video in videos]
        if videos and number % 4 == 0
        else []
    )
    return product


def generate(products: int, seed: int = 11) -> Iterator[dict[str, Any]]:
    """`products` products: every real product's variant 0, then variant 1 of each, and so on."""
    real = real_products()
    rng = random.Random(seed)  # noqa: S311 - made-up catalogs, not secrets
    for new_id in range(1, products + 1):
        number, at = divmod(new_id - 1, len(real))
        yield variant(real[at], number, new_id, rng)


def catalog_file(products: int, directory: Path) -> Path:
    """The catalog of `products` products as JSON Lines, written once under `directory`."""
    path = directory / f"scale_catalog_{products}.jsonl"
    if not path.exists():
        partial = path.with_suffix(".part")
        with partial.open("wb") as stream:
            for record in generate(products):
                stream.write(orjson.dumps(record) + b"\n")
        partial.rename(path)
    return path


def shopper_queries() -> list[dict[str, Any]]:
    """The distinct queries every size is asked, each with what the engine answers for it:
    the labelled queries of `make relevance`, two words of titles of the real catalog, and
    title words misspelt (a swap of two letters: the fuzzy tier)."""
    from relevance.sets import OWN, toml_queries
    from tests.support.engine import fallback_resolution

    queries = [
        {"text": query.text, "region": query.region, "resolution": query.resolution}
        for query in toml_queries(OWN, "own")
    ]
    real = real_products()
    for n, product in enumerate(real[:: len(real) // 150][:150]):
        words = title_words(product["title"])
        queries.append(
            {
                "text": f"scale intent {n}: {' '.join(words)}",
                "region": "IN",
                "resolution": fallback_resolution(" ".join(words))
                | {"categories": [product["category_l2"]]},
            }
        )
    for n, product in enumerate(real[7 :: len(real) // 60][:60]):
        words = [word for word in title_words(product["title"]) if word.isalpha()]
        if not words or len(words[0]) < 6:
            continue
        typo = words[0][:2] + words[0][3] + words[0][2] + words[0][4:]
        queries.append(
            {
                "text": f"scale typo {n}: {typo}",
                "region": "IN",
                "resolution": fallback_resolution(typo),
            }
        )
    return queries
