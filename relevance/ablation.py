"""What each signal of retrieval is worth: `RELEVANCE_WITHOUT=types,brands` serves the labelled
queries with those signals off, as the gateway answered before they were built, so that
docs/relevance.md can report each one on and off. Only `make relevance`'s serving process
applies it; the gateway itself has no such switch.

- `types`: no wanted kind (catalog/types.py): every tier orders as if nothing were wanted.
- `brands`: no brand named (catalog/wanted.py).
- `exclusions`: an excluded phrase is one phrase, alternatives and all, only a constraint that
  starts with its negation excludes, and a thing is ruled out by its own name alone
  (matching/recommend/exclusions.py).
- `rates`: a budget is read in dollars whatever its currency (matching/recommend/budget.py).
- `hints`: the resolution is taken as it is: words of shopping searched for, no other
  spellings of a two-part word, categories always confine, a misspelt kind not corrected; in
  the partial tier each keyword names its last word, whatever it says (catalog/heads.py), and
  a corrected word names nothing beside another word, and is a guess even where the normalized
  query names it; keywords the catalog cannot read are searched as they are (catalog/wanted.py).
- `sizes`: a measure the shopper states ("64gb", "1 ton") orders nothing (catalog/aside.py).
- `audiences`: whom the shopper asked for ("men", "girls") orders nothing, nor a baby's
  product where the shopper names no one young, nor one naming no one young where the shopper
  names a baby or a child, and the fuzzy tier asks for it inside the resolved categories too
  (catalog/audiences.py).
- `vehicles`: the vehicle the shopper rides ("car", "bike") orders nothing, nor a vehicle's
  product where the shopper names none (catalog/vehicles.py).
- `devices`: the device the shopper's accessory fits ("camera" of "tripod for my DSLR") orders
  nothing (catalog/devices.py).
- `animals`: a product for animals is served as any other where the shopper names none
  (catalog/animals.py).
- `materials`: a material a constraint states ("material: genuine leather") weighs as any other
  word in the partial tier (matching/recommend/requirements.py), and neither a part's material
  ("metal strap") nor a material asked genuine ("genuine leather") sets anything aside
  (catalog/materials.py).
- `cheap`: a shopper asking for it cheap with no figure ("cheap wireless headphones") is
  served in the order of the words alone (catalog/text.py's CHEAP).
"""

import re
from decimal import Decimal

from relevance import switches

SIGNALS = (
    "types",
    "brands",
    "exclusions",
    "rates",
    "hints",
    "sizes",
    "audiences",
    "vehicles",
    "devices",
    "animals",
    "materials",
    "cheap",
)


def chosen() -> list[str]:
    """The signals RELEVANCE_WITHOUT turns off; an unknown name is an error."""
    return switches.chosen("RELEVANCE_WITHOUT", SIGNALS)


def apply(names: list[str]) -> None:
    """Turn the signals off in this process (after Django is set up)."""
    from catalog import (
        animals,
        audiences,
        compounds,
        devices,
        heads,
        materials,
        measures,
        spelling,
        text,
        types,
        vehicles,
        wanted,
    )
    from matching.recommend import budget, exclusions, retrieve

    if "types" in names:
        types.wanted_kinds = lambda phrases: ()
    if "brands" in names:
        wanted.brand = lambda keywords: ""
    if "exclusions" in names:
        exclusions.alternatives = lambda what: [what.strip(" .,;!")]
        exclusions._LATER = re.compile(r"(?!)")
        exclusions._other_names = lambda terms, asked, thing=(): ()
    if "rates" in names:
        budget.usd_rate = lambda currency: Decimal(1)
    if "hints" in names:
        text.without_shopping_words = lambda keywords, normalized="": list(keywords)
        compounds.spellings = lambda keyword: []
        compounds.kinds = tuple  # type: ignore[assignment]
        spelling.corrected_kinds = tuple  # type: ignore[assignment]
        wanted.misplaced = lambda query: False
        compounds.split = lambda word: None
        compounds.joined = lambda keyword: []
        compounds.joined_apart = lambda reading, keywords: []
        types.first_phrase = lambda phrase: phrase
        types.describes_only = lambda phrase: False
        measures.without = lambda text: text
        heads.keeps_guess = lambda others, guesses: False
        heads.confirmed = lambda reading, guessed, units, loose: set()
        wanted.in_catalog_words = lambda query: query
    if "sizes" in names:
        measures.wanted = lambda texts: ()
    if "audiences" in names:
        audiences.asked = lambda phrases: ()
        audiences.for_anyone = lambda keywords: []
        audiences.names_young = lambda phrases: True
        audiences.names_baby = lambda phrases: False
        audiences.names_child = lambda named, phrases: False
    if "vehicles" in names:
        vehicles.asked = lambda phrases: ()
        vehicles.none_named = lambda phrases: False
    if "devices" in names:
        devices.asked = lambda phrases, ruled_out=(): ()
    if "animals" in names:
        animals.asked = lambda phrases: True
    if "materials" in names:
        retrieve.required = lambda resolution, keywords: ()
        materials.wanted = lambda keywords: ()
        materials.asked_genuine = lambda phrases: ()
    if "cheap" in names:
        text.asks_cheap = lambda phrases: False
