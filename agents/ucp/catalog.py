"""UCP's catalog search and lookup, answered by the services of recommend and cards.

Search is a recommend (matching/recommend/) with UCP's filters laid over what the engine
understood (matching/recommend/options.py): the words go through the intent engine, products come
from the tiers, and the Intent, its cards, proposals and match session are recorded as for any
recommend, so a sale through a UCP buy link is credited like one through recommend. Its next
pages come from the same retrieval further down, their cards recorded under the first page's
Intent. The cursor is sealed (kernel/secrets.py: encrypted and authenticated): it carries where
the search stands and whom it was answered to, unreadable to anyone; it is refused for another
search, from another client (the throttles' client address), or once it is a day old, so that
nobody but the searcher records cards under the search's Intent.

Lookup issues a fresh card (a rec_id) for each product asked for, as GET
/v1/products/{id}/card does, and answers them in UCP's shape (agents/ucp/products.py). Each id
asked for counts against the client's `cards` allowance (agents/ucp/views.py).
"""

import hashlib
import zlib
from dataclasses import asdict
from decimal import Decimal
from typing import Any

import orjson
from asgiref.sync import sync_to_async

from agents.ucp import profile as ucp
from agents.ucp.errors import UCP_BAD_CURSOR, UCP_CURSOR_OF_ANOTHER_CLIENT, UCP_TOO_MANY_IDS
from agents.ucp.products import VARIANT_SUFFIX, offered, ucp_product
from agents.ucp.serializers import MAX_IDS, MAX_PAGE
from catalog import search
from catalog.models import Product
from catalog.services import cards_build, cards_record, products_for_cards, products_with_videos
from kernel import secrets
from matching.engine.resolution import MAX_INTENT_CHARS
from matching.recommend.options import Refinement
from matching.recommend.pipeline import recommend, retrieved

CHANNEL = "ucp"
MAX_DEPTH = 100  # how far down a search pages: no agent reads further
CURSOR_MAX_AGE_S = 24 * 3600


def _info(code: str, content: str) -> dict[str, str]:
    return {"type": "info", "code": code, "content": content}


def _region(context: dict[str, Any], messages: list[dict[str, str]]) -> str | None:
    country = context.get("address_country")
    if country is None:
        return None
    if len(country) == 2 and country.isascii() and country.isalpha():
        return country.upper()
    messages.append(
        _info("context_ignored", "address_country is used as an ISO 3166-1 alpha-2 code only.")
    )
    return None


def _budget(request: dict[str, Any], messages: list[dict[str, str]]) -> tuple[Any, Any]:
    """The price filter in dollars, (min, max); (None, None) when there is none or it is in a
    currency other than the catalog's."""
    price = request.get("filters", {}).get("price") or {}
    if not price:
        return None, None
    currency = request.get("context", {}).get("currency")
    if currency not in (None, "USD"):
        messages.append(
            _info(
                "price_filter_ignored", f"Prices are in USD; a filter in {currency} is not applied."
            )
        )
        return None, None
    low, high = price.get("min"), price.get("max")
    return (
        float(Decimal(low) / 100) if low is not None else None,
        float(Decimal(high) / 100) if high is not None else None,
    )


def _fingerprint(request: dict[str, Any]) -> str:
    """What makes a search the same search: everything but its pagination."""
    asked = {key: value for key, value in request.items() if key != "pagination"}
    return hashlib.sha256(orjson.dumps(asked, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]


def _caller(address: str) -> str:
    """How a cursor names the client it was answered to, without its address."""
    return hashlib.sha256(address.encode()).hexdigest()[:32]


def _page_of(limit: int | None) -> int:
    return min(limit or 10, MAX_PAGE)


def _pagination(state: dict[str, Any] | None) -> dict[str, Any]:
    if state is None:
        return {"has_next_page": False}
    cursor = secrets.seal(zlib.compress(orjson.dumps(state)))
    return {"has_next_page": True, "cursor": cursor}


Shown = tuple[Product, dict[str, Any], str]  # a product, its new card, the tier that found it


def _products(shown: list[Shown]) -> list[dict[str, Any]]:
    return [
        ucp_product(product, card, match_tier=tier)
        for product, card, tier in shown
        if offered(product)
    ]


async def search_catalog(request: dict[str, Any], *, caller: str, release: str) -> dict[str, Any]:
    """Answer UCP's catalog search (a validated search request) to the client at `caller`,
    an address, in UCP's `release`. Raises ApiError."""
    pagination = request.get("pagination", {})
    if "cursor" in pagination:
        return await sync_to_async(_next_page)(request, pagination["cursor"], caller, release)
    messages: list[dict[str, str]] = []
    context = request.get("context", {})
    categories = tuple(request.get("filters", {}).get("categories", ()))
    asked = " ".join(part for part in (request.get("query"), context.get("intent")) if part)
    words = (asked or ", ".join(categories))[:MAX_INTENT_CHARS]
    budget_min, budget_max = _budget(request, messages)
    limit = _page_of(pagination.get("limit"))
    body = await recommend(
        intent=words,
        limit=limit,
        region=_region(context, messages),
        channel=CHANNEL,
        refinement=Refinement(categories=categories, budget_min=budget_min, budget_max=budget_max),
    )
    continuation = body["search"]
    ids = [int(card["product"]["id"]) for card in body["items"]]
    tiers = [proposal["metadata"]["match_tier"] for proposal in body["proposals"]]
    loaded = await sync_to_async(products_for_cards)(ids)
    # A product deleted since its card was issued (this process's memory aside) is left out.
    shown = [
        (loaded[product_id], card, tier)
        for product_id, card, tier in zip(ids, body["items"], tiers, strict=True)
        if product_id in loaded
    ]
    state = None
    if continuation.more and limit < MAX_DEPTH:
        state = {
            "intent": body["intent_id"],
            "offset": limit,
            "query": asdict(continuation.query),
            "search": _fingerprint(request),
            "caller": _caller(caller),
        }
    messages.insert(0, _info("shopper_guide", body["shopper_guide"]))
    return {
        "ucp": ucp.envelope(ucp.SEARCH, release),
        "products": _products(shown),
        "pagination": _pagination(state),
        "messages": messages,
    }


def _cursor_state(cursor: str, request: dict[str, Any], caller: str) -> dict[str, Any]:
    """Where the search of `cursor` stands, if the cursor is this client's, for this search,
    and less than a day old. Raises UCP_BAD_CURSOR, or UCP_CURSOR_OF_ANOTHER_CLIENT."""
    sealed = secrets.unseal(cursor, max_age_s=CURSOR_MAX_AGE_S)
    try:
        state = orjson.loads(zlib.decompress(sealed)) if sealed is not None else None
    except (zlib.error, orjson.JSONDecodeError):
        state = None
    if not isinstance(state, dict) or state.get("search") != _fingerprint(request):
        raise UCP_BAD_CURSOR()
    if state.get("caller") != _caller(caller):
        raise UCP_CURSOR_OF_ANOTHER_CLIENT()
    return state


def _next_page(request: dict[str, Any], cursor: str, caller: str, release: str) -> dict[str, Any]:
    state = _cursor_state(cursor, request, caller)
    try:
        query = search.SearchQuery(**state["query"])
        intent_id, offset = str(state["intent"]), int(state["offset"])
    except (KeyError, TypeError, ValueError):
        raise UCP_BAD_CURSOR() from None
    if not 0 < offset < MAX_DEPTH:
        raise UCP_BAD_CURSOR()
    depth = min(offset + _page_of(request.get("pagination", {}).get("limit")), MAX_DEPTH)
    hits = retrieved(query, depth + 1)
    page = hits[offset:depth]
    loaded = products_for_cards([hit.product_id for hit in page])
    kept = [hit for hit in page if search.fits(query, loaded.get(hit.product_id))]
    products = [loaded[hit.product_id] for hit in kept]
    cards = cards_build(products=products, channel=CHANNEL)
    cards_record(products=products, cards=cards, region=query.region, intent_id=intent_id)
    more = len(hits) > depth and depth < MAX_DEPTH
    following = {**state, "offset": depth} if more else None
    return {
        "ucp": ucp.envelope(ucp.SEARCH, release),
        "products": _products(list(zip(products, cards, [hit.tier for hit in kept], strict=True))),
        "pagination": _pagination(following),
    }


# --- Lookup -----------------------------------------------------------------------------------


def _product_id(identifier: str) -> tuple[int, str] | None:
    """(product id, how the identifier names it): `exact` for a variant id, `featured` for a
    product id (its one variant is chosen for it)."""
    text, match = identifier, "featured"
    if identifier.endswith(VARIANT_SUFFIX):
        text, match = identifier[: -len(VARIANT_SUFFIX)], "exact"
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    return int(text), match


def _lookup_query(request: dict[str, Any], messages: list[dict[str, str]]) -> search.SearchQuery:
    """The filters and context of a lookup as the rules a product must keep to."""
    budget_min, budget_max = _budget(request, messages)
    categories = tuple(request.get("filters", {}).get("categories", ()))
    return search.SearchQuery(
        text="",
        keywords=(),
        categories=categories,
        region=_region(request.get("context", {}), messages),
        budget_min=budget_min,
        budget_max=budget_max,
        only_categories=bool(categories),
    )


def lookup_catalog(request: dict[str, Any], release: str) -> dict[str, Any]:
    """Answer UCP's catalog lookup in `release`: a fresh card for each product found, in the
    order asked; an info message `not_found` for each identifier that names none (or none
    these filters keep). Raises ApiError."""
    identifiers = list(dict.fromkeys(request["ids"]))
    if len(identifiers) > MAX_IDS:
        raise UCP_TOO_MANY_IDS(limit=MAX_IDS)
    messages: list[dict[str, str]] = []
    rules = _lookup_query(request, messages)
    named = {identifier: _product_id(identifier) for identifier in identifiers}
    wanted = {found[0] for found in named.values() if found}
    loaded = {product.id: product for product in products_with_videos().filter(id__in=wanted)}
    inputs: dict[int, list[dict[str, str]]] = {}
    for identifier, found in named.items():
        product = loaded.get(found[0]) if found else None
        if (
            found is None
            or product is None
            or not offered(product)
            or not search.fits(rules, product)
        ):
            messages.append(_info("not_found", identifier))
            continue
        inputs.setdefault(found[0], []).append({"id": identifier, "match": found[1]})
    products = [loaded[product_id] for product_id in inputs]
    cards = cards_build(products=products, channel=CHANNEL)
    cards_record(products=products, cards=cards, region=rules.region)
    answered = []
    for product, card in zip(products, cards, strict=True):
        body = ucp_product(product, card)
        body["variants"][0]["inputs"] = inputs[product.id]
        answered.append(body)
    reply: dict[str, Any] = {"ucp": ucp.envelope(ucp.LOOKUP, release), "products": answered}
    if messages:
        reply["messages"] = messages
    return reply


def get_product(request: dict[str, Any], release: str) -> dict[str, Any]:
    """Answer UCP's get_product in `release`: the product's full detail with a fresh card, or
    UCP's application error `not_found` (HTTP 200, status `error`) when the id names none."""
    identifier = request["id"]
    found = _product_id(identifier)
    messages: list[dict[str, str]] = []
    rules = _lookup_query(request, messages)
    product = products_with_videos().filter(id=found[0]).first() if found else None
    if product is None or not offered(product) or not search.fits(rules, product):
        content = f"Product not found: {identifier}"
        return ucp.error_response(ucp.LOOKUP, 404, "not_found", content, release)
    cards = cards_build(products=[product], channel=CHANNEL)
    cards_record(products=[product], cards=cards, region=rules.region)
    reply: dict[str, Any] = {
        "ucp": ucp.envelope(ucp.LOOKUP, release),
        "product": {**ucp_product(product, cards[0]), "selected": []},
    }
    if messages:
        reply["messages"] = messages
    return reply
