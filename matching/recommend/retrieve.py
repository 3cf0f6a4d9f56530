"""Retrieve: the catalog's products for a resolution, tier by tier (catalog/search.py), each an
offer of the tier that found it, in retrieval order; and whether more were found than asked."""

import hashlib
from collections.abc import Sequence

import orjson
from django.conf import settings

from catalog import (
    ages,
    animals,
    audiences,
    categories,
    devices,
    materials,
    measures,
    search,
    text,
    types,
    vehicles,
    versions,
)
from catalog.services import products_for_cards
from kernel.cache import cached
from matching.engine.resolution import Resolution, normalize
from matching.recommend.budget import Priced
from matching.recommend.exclusions import Excluded, requirement, stems
from matching.recommend.offer import Offer
from matching.recommend.options import Options
from matching.recommend.requirements import required, required_measures


def query_of(
    intent: str,
    resolution: Resolution,
    options: Options,
    budget: Priced,
    excluded: Sequence[Excluded] = (),
) -> search.SearchQuery:
    """What retrieval searches for: the resolution's words and categories, the budget in the
    catalog's dollars (none when its currency has no rate), without what the shopper ruled
    out."""
    refinement = options.refinement
    # A hint, not an order: words of shopping ("buy", "best", "online") search for nothing.
    said = resolution.normalized_query
    keywords = text.with_audience(text.without_shopping_words(resolution.keywords, said), said)
    whom = [resolution.target_audience or "", said, *keywords]
    required_of = [requirement(constraint) for constraint in resolution.constraints]
    named = audiences.asked(whom)
    return search.SearchQuery(
        text=normalize(intent),
        keywords=keywords,
        categories=resolution.categories,
        region=options.region or resolution.region,
        budget_min=budget.min_usd,
        budget_max=budget.max_usd,
        only_categories=bool(refinement and refinement.categories),
        excluded=stems(excluded),
        ruled_out_categories=categories.named_by([item.whole for item in excluded]),
        wanted=types.wanted_kinds([resolution.normalized_query, *keywords[:1]]),
        measures=measures.wanted([resolution.normalized_query, *resolution.keywords]),
        measure_bounds=measures.bounded(
            [intent, resolution.normalized_query, *resolution.keywords, *required_of]
        ),
        age=ages.asked([intent, *whom, *required_of]),
        audiences=named,
        vehicles=vehicles.asked([resolution.normalized_query, *keywords]),
        devices=devices.asked(
            [resolution.normalized_query, *keywords], [item.words for item in excluded]
        ),
        no_animals=not animals.asked([said, *keywords, *resolution.categories]),
        no_vehicles=vehicles.none_named([said, *keywords, *resolution.categories]),
        no_babies=not audiences.names_young(
            [resolution.target_audience or "", said, *keywords, *resolution.categories]
        ),
        babies=audiences.names_baby(whom),
        children=audiences.names_child(named, whom),
        materials=materials.wanted(keywords),
        genuine=materials.asked_genuine(
            [resolution.normalized_query, *keywords, *map(requirement, resolution.constraints)]
        ),
        required=required(resolution, keywords),
        required_measures=required_measures(resolution),
        cheapest_first=text.asks_cheap([resolution.normalized_query, *resolution.keywords]),
        reading=resolution.normalized_query,
    )


def retrieved(query: search.SearchQuery, limit: int) -> list[search.Hit]:
    """The tiers' hits, reused from this process's memory for CATALOG_CACHE_S for the same
    query while the catalog's version holds (catalog/versions.py): a warm recommend then costs
    no search at all, and an edit reaches search on every process within CHECK_S."""
    # orjson writes a dataclass's fields in their declared order: the same query, the same key.
    digest = hashlib.sha256(orjson.dumps([query, limit]))
    found = cached(
        f"recommend:retrieval:{versions.current()}:{digest.hexdigest()}",
        settings.CATALOG_CACHE_S,
        lambda: [(hit.product_id, hit.tier) for hit in search.retrieve(query, limit).hits],
    )
    return [search.Hit(product_id, tier) for product_id, tier in found]


def offers(query: search.SearchQuery, options: Options) -> tuple[list[Offer], bool]:
    """The offers of the first `options.limit` hits, loaded, and whether more were found.

    None deleted, moved out of the region or repriced over the budget since it was found (as
    far as this process's memory knows: catalog edits count within CATALOG_CACHE_S)."""
    hits = retrieved(query, options.retrieved)
    more = len(hits) > options.limit
    hits = hits[: options.limit]
    loaded = products_for_cards([hit.product_id for hit in hits])
    kept = [hit for hit in hits if search.fits(query, loaded.get(hit.product_id))]
    return [Offer(loaded[hit.product_id], hit.tier) for hit in kept], more
