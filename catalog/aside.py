"""Products served after the rest: of another size, material or age than the shopper stated
(catalog/measures.py, catalog/materials.py, catalog/ages.py), or for someone, a vehicle or a
device other than the shopper asked for (catalog/audiences.py, catalog/vehicles.py,
catalog/devices.py), or for animals or a vehicle when the shopper named none
(catalog/animals.py, catalog/vehicles.py).

Retrieval (catalog/search.py) reads the title, type and category of each product a tier finds
when the query states a measure, an age, an audience, a vehicle or a device, or names no
animal, no one young or no vehicle; a product of another size, or for another audience, is set
aside and the tier asked again in its place, so that a 128 GB card found by a looser tier comes
before a 256 GB card found by a tighter one, and men's socks that only say "socks" before
women's socks that say "men" nowhere. The set-aside products are served after, never dropped.
"""

from collections.abc import Sequence

from catalog import ages, animals, audiences, devices, materials, measures, text, vehicles
from catalog.query import SearchQuery
from catalog.retrieval import TIERS
from catalog.services import products_for_cards


def set_aside(
    query: SearchQuery,
    ids: Sequence[int],
    typed: set[int],
    nearer: set[int],
    elsewhere: set[int],
) -> set[int]:
    """Those of `ids` whose title states a measure of another size than the query's
    (catalog/measures.py: a 256 GB card for a 64 GB one) or ages that leave out the one asked
    (catalog/ages.py: a "3-6 Years" school bag for an 8 year old) or names only audiences the
    query's do not accept (catalog/audiences.py: women's socks for men) or only other vehicles
    (catalog/vehicles.py: a handlebar mount for a car) or devices (catalog/devices.py: a
    phone's tripod for a camera), or is a vehicle's where the query names
    a person and no vehicle (a car perfume for men), or makes a part asked of another
    material (catalog/materials.py: a silicone strap for a metal one) or is for animals where
    the query names none (catalog/animals.py: a dog shampoo); adds to `typed` those read of a
    kind the query wants, but for the audience and vehicle asked, and those kept that hold
    everything the constraints require (a "1.5 litre ... Stainless Steel ... Combo" whose
    type reads otherwise); and to `nearer` those set
    aside only for naming a baby where the shopper named no one young (a baby's diaper pants of
    the size asked before those of another), for naming no child where the shopper named a baby
    or a child ("for Women & Girls" names none), or for being a vehicle's where the shopper named
    none (a car's windshield umbrella for a foldable umbrella); and to `elsewhere` those of
    them of a kind the query wants (a car's umbrella, for an umbrella)."""
    judged = (
        query.measures
        or query.audiences
        or query.vehicles
        or query.devices
        or query.materials
        or query.genuine
        or query.age is not None
    )
    young = query.babies or query.children
    child = ages.a_child_s(query.age)
    if not (judged or query.no_animals or query.no_babies or query.no_vehicles or young) or not ids:
        return set()
    # The thing itself, whatever its title says of which one ("SanDisk ... Card, 64GB" is a
    # memory card): the size is what is judged here.
    heads = {kind[-1] for kind in query.wanted if kind}
    other: set[int] = set()
    # Read as its card will be (and kept for it: the products served are among these).
    for pk, product in products_for_cards(ids).items():
        title, product_type = product.title, product.product_type
        for_others = (
            audiences.for_others(query.audiences, title)
            or vehicles.for_others(query.vehicles, title)
            or devices.for_others(query.devices, title)
            or (bool(query.audiences) and not query.vehicles and vehicles.a_vehicles(title))
            or (query.no_animals and animals.for_animals(product))
        )
        # Of another size, or for a baby when the shopper named no one, the thing asked for is
        # still near; for someone else named, it is not: a women's trimmer comes after a shaver
        # for anyone when a man asked for a trimmer, a baby's mattress protector before a
        # nappy changing mat.
        if product_type in heads and not for_others:
            typed.add(pk)
        otherwise = (
            for_others
            or measures.contradicts(query.measures, title, query.measure_bounds)
            or ages.contradicts(query.age, title)
            or materials.contradicts(query.materials, title)
            or materials.imitates(query.genuine, title)
        )
        if otherwise:
            other.add(pk)
        elif (
            (query.no_babies and audiences.for_babies(title))
            or (young and not audiences.a_child_s(title, aged=child))
            or (query.no_vehicles and vehicles.a_vehicles(title))
        ):
            other.add(pk)
            nearer.add(pk)
            if pk in typed and query.no_vehicles and vehicles.a_vehicles(title):
                elsewhere.add(pk)
        elif _meets_requirements(query, title):
            typed.add(pk)  # all a constraint requires: "1.5 litre ... Stainless Steel ... Combo"
    return other


def _meets_requirements(query: SearchQuery, title: str) -> bool:
    """Whether a title holds every word a constraint requires, as the partial tier reads it
    ("(Without Bag)" holds no bag: text.held_plainly), and states a measure one states
    (matching/recommend/requirements.py), where constraints require any."""
    if not (query.required or query.required_measures):
        return False
    terms = text.terms(title)
    if not all(text.held_plainly([word], terms) for word in query.required):
        return False
    return not query.required_measures or measures.among(
        query.required_measures, measures.measures(title), query.measure_bounds
    )


def served_after(
    found: dict[int, str],
    aside: dict[int, str],
    typed: set[int],
    limit: int,
    nearer: set[int],
    elsewhere: set[int],
) -> dict[int, str]:
    """The products of the asked size first, those of another size after them; except that one
    of the wanted kind comes before one of the asked size that is not and that its own tier or a
    looser one found (a 5.5 litre pressure cooker before a 3 litre water heater), unless that
    one holds everything the constraints require (`typed` holds it too); one of the wanted kind
    that is a vehicle's where the shopper named none (`elsewhere`) only before what a looser
    tier found (a car's neck pillow after a travel cushion its own tier found, before a
    luggage tag only the category found). Of those set aside, those `nearer` (a baby's, of the
    size asked) first."""
    if nearer:
        aside = dict(sorted(aside.items(), key=lambda item: item[0] not in nearer))
    ordered: dict[int, str] = {}
    waiting = [product_id for product_id in aside if product_id in typed]
    for product_id, tier in found.items():
        if product_id not in typed:
            ready = [held for held in waiting if _passes(aside[held], tier, held in elsewhere)]
            ordered.update((held, aside[held]) for held in ready)
            waiting = [held for held in waiting if held not in ready]
        ordered[product_id] = tier
    ordered.update((product_id, aside[product_id]) for product_id in waiting)
    ordered.update((product_id, tier) for product_id, tier in aside.items())
    return dict(list(ordered.items())[:limit])


def _passes(held: str, tier: str, elsewhere: bool) -> bool:
    """Whether a product of the wanted kind set aside from tier `held` comes before one that
    is not, found by `tier`: from the same tier or a tighter one, or only a tighter one when it
    is a vehicle's the shopper did not name."""
    return _loose(held) < _loose(tier) or (_loose(held) == _loose(tier) and not elsewhere)


def _loose(tier: str) -> int:
    return TIERS.index(tier) if tier in TIERS else len(TIERS)
