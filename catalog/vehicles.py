"""What vehicle a product is for, as its title says, against the one the shopper rides: "a
mobile holder for my car" asked, "Phone Holder for Bike Handlebar" is for another vehicle and is
served after the rest (the retrieval set-aside, catalog/aside.py), as a product for another
audience is (catalog/audiences.py); never dropped. A title that names no vehicle is for any, and
one that names the shopper's among others ("Charger for Car and Bike") is for theirs.

The vehicles are classes of words: a car; a two-wheeler (motorcycle, scooter, "scooty"); a
bicycle ("cycle"). "Bike" names both of the last two, as shoppers and titles use it, unless
a word beside it names one ("Mountain Bike Cycle Helmet", "bike or motorcycle helmet").

The home is such a place too, against the car alone: "a vacuum cleaner for home" asked, "Car
Vacuum Cleaner" is for another place, as "a car air freshener" asked, "Room Freshener for
Home" is; a product for the home ("home", "house", "room") that names a bicycle (an exercise
bike) is not for another place.

A person is set against a vehicle: where the shopper names whom it is for ("perfume for men")
and no vehicle, a title whose first phrase names a vehicle ("Car Perfume Gel, ...") and no
person is the vehicle's, and is set aside the same way (catalog/aside.py); one that names the
vehicle only after what it is ("Mosquito Net for Strollers, Car Seat") is not. So too where the
shopper names no vehicle at all, in words or categories: "Car Windshield Sun Shade Umbrella" is
served after the umbrellas for "foldable umbrella", as near as another size; "Bike Riding Gloves
for Men", naming a person, is a man's.
"""

from collections.abc import Collection, Iterable, Sequence

from catalog import audiences, text, types

HOME = "home"
_CLASSES: dict[str, frozenset[str]] = {
    text.stem(word): frozenset(classes)
    for words, classes in (
        (("car", "cars", "suv", "hatchback", "sedan"), ("car",)),
        (
            ("motorcycle", "motorcycles", "motorbike", "motorbikes", "scooter", "scooty"),
            ("two-wheeler",),
        ),
        (("bicycle", "bicycles", "cycle", "cycles", "cycling"), ("bicycle",)),
        (("bike", "bikes"), ("two-wheeler", "bicycle")),
        (("home", "homes", "house", "houses", "room", "rooms"), (HOME,)),
    )
    for word in words
}


def asked(phrases: Iterable[str]) -> tuple[str, ...]:
    """The vehicles the phrases (the model's reading of the request, its keywords) name."""
    return tuple(sorted(_named([term for phrase in phrases for term in text.terms(phrase)])))


def for_others(wanted: Collection[str], title: str) -> bool:
    """Whether the title names vehicles and none of `wanted`."""
    if not wanted:
        return False
    named = _named(text.terms(title))
    if set(wanted) == {HOME}:
        named &= {HOME, "car"}  # the home is set against the car alone
    return bool(named) and not named & set(wanted)


def a_vehicles(title: str) -> bool:
    """Whether the title's first phrase, what the product is, names a vehicle (the home is no
    vehicle) and the title names no person ("Car Perfume Gel, ..."; not "Mosquito Net for
    Strollers, Car Seat")."""
    named = _named(text.terms(types.first_phrase(title))) - {HOME}
    return bool(named) and not audiences.names_one(title)


def none_named(phrases: Iterable[str]) -> bool:
    """Whether the phrases (the reading, keywords, categories) name no vehicle; the home, which
    "Home & Kitchen" names, is no vehicle."""
    return not set(asked(phrases)) - {HOME}


def _named(terms: Sequence[str]) -> set[str]:
    """The vehicles the terms name; "bike" beside a word that names one of its two ("cycling",
    "motorcycle") names that one."""
    named = [_CLASSES[term] for term in terms if term in _CLASSES]
    certain = {vehicle for classes in named if len(classes) == 1 for vehicle in classes}
    return certain | {vehicle for classes in named if not classes & certain for vehicle in classes}
