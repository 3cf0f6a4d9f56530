"""What retrieval searches for (SearchQuery), and whether a product keeps to it: its region,
its budget, its categories when they are a filter, and nothing the shopper ruled out."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from catalog import text
from catalog.models import Product


@dataclass(frozen=True)
class SearchQuery:
    text: str  # the shopper's words, normalized (engine.normalize)
    keywords: Sequence[str]
    categories: Sequence[str]
    region: str | None = None
    budget_min: float | None = None
    budget_max: float | None = None
    # The categories as a filter (UCP's): every tier keeps to them, no trending product fills.
    only_categories: bool = False
    # What the shopper ruled out, each a word's stem or a phrase's stems in order: no product
    # whose title, tags or brand holds one is served, in any tier or the trending fill.
    excluded: Sequence[Sequence[str]] = ()
    # The kinds of thing the shopper wants (catalog/types.py: stems, a type's last): in every
    # tier, a product of one ranks before products that only mention it.
    wanted: Sequence[Sequence[str]] = ()
    # The measures the shopper stated (catalog/measures.py: "64gb", "1 ton"): a product of
    # another size is served after every product that is not.
    measures: Sequence[tuple[str, float]] = ()
    # Those of the measures asked as bounds (catalog/measures.py: "at least 60 litres", "6 mm
    # or more"): a title stating a measure within one is of the size asked.
    measure_bounds: Sequence[tuple[str, float, str]] = ()
    # The age in years of the one the shopper shops for (catalog/ages.py: "for my 8 year old"):
    # a product whose title states ages that leave it out is served after, as another size is.
    age: float | None = None
    # Whom the shopper asked for (catalog/audiences.py: "men", "girls"): a product whose title
    # names only others is served after every product that does not.
    audiences: tuple[str, ...] = ()
    # The vehicles the shopper rides (catalog/vehicles.py: "car", "bicycle"): a product whose
    # title names only others is served after every product that does not.
    vehicles: tuple[str, ...] = ()
    # The devices the shopper's accessory fits (catalog/devices.py: "camera" of "tripod for my
    # DSLR"): a product whose title names only others is served after every product that does not.
    devices: tuple[str, ...] = ()
    # The shopper named no animal (catalog/animals.py): a product for animals ("Dog Shampoo")
    # is served after every product that is not.
    no_animals: bool = False
    # The shopper named no vehicle (catalog/vehicles.py): a product whose name says it is a
    # vehicle's ("Car Windshield Sun Shade Umbrella") is served after every product that is not,
    # as near as another size.
    no_vehicles: bool = False
    # The shopper named no one young (catalog/audiences.py): a product whose title names a baby
    # ("Milestone Blanket for Baby") is served after every product that does not.
    no_babies: bool = False
    # The shopper named a baby (catalog/audiences.py): a product whose title names no one young
    # ("Ultra Hydrating Lotion for Dry Skin" for a baby's dry skin) is served after every product
    # that does, as near as another size.
    babies: bool = False
    # The shopper named a child, not a baby or a toddler (catalog/audiences.py: "tooth paste for
    # kids", "for my son"): a product whose title names no one young (an adult's toothpaste, a
    # grown-up's football boots) is served after every product that does, as near as another
    # size.
    children: bool = False
    # What the shopper asked a part to be made of (catalog/materials.py: "metal" of "metal
    # strap"): a product whose title makes that part of another is served after, as another
    # size is.
    materials: tuple[tuple[str, str], ...] = ()
    # The materials the shopper asked for genuine ("leather" of "genuine leather",
    # catalog/materials.py): a product whose title names an imitation of one ("Synthetic
    # Leather") is served after, as another material is.
    genuine: tuple[str, ...] = ()
    # The keywords' materials a constraint requires too ("leather" of "material: genuine
    # leather", matching/recommend/requirements.py): the partial tier serves a product holding
    # more of them first.
    required: tuple[str, ...] = ()
    # The measures a constraint states too ("65 litre capacity", "weight: 5 kg each"): the
    # partial tier serves a product whose title states one first, as a required material.
    required_measures: Sequence[tuple[str, float]] = ()
    # The categories (lower-case names) a phrase the shopper ruled out names whole ("sports
    # shoes": catalog/categories.py's named_by): none of their products is served either.
    ruled_out_categories: tuple[str, ...] = ()
    # The brand key of a brand the keywords name (catalog/brands.py), "" for none: set by search.
    brand: str = ""
    # The shopper asked for it cheap and named no figure (text.asks_cheap): within each tier's
    # order of what a product is, the lower price before the better match of the words.
    cheapest_first: bool = False
    # The model's reading of the request as a short search (its normalized query): searched in
    # place of keywords that name only things no product holds (catalog/wanted.py).
    reading: str = ""

    @property
    def has_budget(self) -> bool:
        return self.budget_min is not None or self.budget_max is not None


def fits(query: SearchQuery, product: Product | None) -> bool:
    """Whether a loaded product (None: gone) still keeps to the query's region and budget, to
    its categories when they are a filter, and holds nothing the shopper ruled out."""
    if product is None or (query.excluded and rules_out(query.excluded, product)):
        return False
    if (product.category_l2 or "").lower() in query.ruled_out_categories:
        return False
    sold_there = not product.regions or query.region is None or query.region in product.regions
    if query.only_categories:
        named = {(name or "").casefold() for name in (product.category_l1, product.category_l2)}
        if not named & {name.casefold() for name in query.categories}:
            return False
    return sold_there and within_budget(query, product.price_usd)


def rules_out(excluded: Sequence[Sequence[str]], product: Product) -> bool:
    """Whether a product's title, tags or brand hold one of the `excluded` stems or phrases,
    a single stem not as what the product is without ("Non Padded": text.held_plainly)."""
    fields = (product.title, " . ".join(product.tags), product.brand or "")
    read = [text.terms(field) for field in fields if field]
    return any(text.held_plainly(terms, field) for terms in excluded for field in read)


def within_budget(query: SearchQuery, price: Decimal | float | None) -> bool:
    if not query.has_budget:
        return True
    if price is None:
        return False
    value = float(price)
    low_ok = query.budget_min is None or value >= query.budget_min
    return low_ok and (query.budget_max is None or value <= query.budget_max)
