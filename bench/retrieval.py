"""Benchmark of retrieval at 10k products, in-process (DESIGN.md section 11: p95 of the word
tiers <= 5 ms, of the fuzzy tier <= 20 ms).

Retrieval is the part of a recommend that grows with the catalog: each tier of catalog/search.py
asks the database's full-text search (PostgreSQL or SQLite FTS5) for the products an intent's
words find. Timing the tiers alone, in the bench's own process, shows each one's cost apart from
the request around it (which recommend_warm.py measures over HTTP).

On the 10k-product demo catalog, each tier (catalog.search.tier_ids) is timed RUNS (200) times
over 20 shoppers' words taken from the catalog's titles (the fuzzy tier's with two letters
swapped); p95 per tier. The reference is the bench's reference view through Django's test
client in the same process (bench/reference.py).

Runs alone (`python bench/retrieval.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import sys
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, reference
from bench.common import RUNS, against, at_most, percentile, shown, timed_ms

if TYPE_CHECKING:
    from catalog.search import SearchQuery

TIER_BUDGETS = {"raw_substring": 5.0, "strict": 5.0, "narrow": 5.0, "fuzzy": 20.0}


def plans() -> "list[dict[str, SearchQuery]]":
    """Each tier's query for 20 shoppers' words, from the catalog's own titles."""
    from catalog import search
    from catalog.models import Product

    queries = []
    for row in Product.objects.order_by("id").values("title", "category_l2")[:400:20]:
        words = common.title_words(str(row["title"]))
        typo = [word[:-2] + word[-1] + word[-2] if len(word) > 4 else word for word in words]
        category = [str(row["category_l2"])]
        queries.append(
            {
                "raw_substring": search.SearchQuery(" ".join(words), words, []),
                "strict": search.SearchQuery("", words, category, budget_max=150),
                "narrow": search.SearchQuery("", words, [], budget_max=150),
                "fuzzy": search.SearchQuery("", typo, [], budget_max=150),
                # The title's words and a weak one no title of its holds all of.
                "partial": search.SearchQuery("", [" ".join(words), "premium gift"], category),
                # Words no title holds: the semantic tier compares the category by meaning.
                "semantic": search.SearchQuery("", [f"something like {words[0]}"], category),
                "broadened": search.SearchQuery("", [], category, budget_max=150),
            }
        )
    return queries


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from catalog import search

    common.ensure_catalog()
    vendor = common.vendor_of(database_url)
    print(f"\n== retrieval at 10k products on {common.VENDORS[vendor]}, in-process")
    queries = plans()
    figures = []
    for tier in search.TIERS:
        samples = []
        for n in range(RUNS):
            query = queries[n % len(queries)][tier]
            samples.append(timed_ms(lambda: search.tier_ids(tier, query, 3)))  # noqa: B023
        name = f"retrieval at 10k, {tier}, p95 (in-process)"
        p95 = percentile(samples, 0.95)
        if tier in TIER_BUDGETS:
            figures.append(at_most(name, vendor, p95, TIER_BUDGETS[tier]))
        else:
            figures.append(shown(name, vendor, p95))
    ruler = reference.in_process()
    common.report([against(f, ruler.at("p95"), f"{ruler.what}, p95") for f in figures])


if __name__ == "__main__":
    common.per_database(run, "bench")
