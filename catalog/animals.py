"""Products for animals, served after the rest when the shopper names no animal: "shampoo 1
litre" asked, "Dog Shampoo Anti Tick 1Litre" is for someone else, as women's socks are for a
man who asked for socks (catalog/audiences.py); never dropped, and a shopper who names a dog,
a cat or a pet ("dog shampoo", "cat litter", "kutte ka khana") is served as before.

A product is for animals when its department says so: its category names an animal ("Dog
supplies", "All Pet Supplies"), or its top category does and is one department ("Pets", not
"Home, Kitchen, Pets"). Titles are not read: "Hush Puppies" shoes, "Cat Eye" sunglasses, a
"Cat 6" cable and "PET" bottles name none. Fish and "animals" are left out: a "Fishing" or
"Stuffed Animals" department is no pet's.
"""

import re
from collections.abc import Iterable

from catalog import text
from catalog.models import Product

ANIMALS = frozenset(
    text.stem(word)
    for word in (
        *("dog", "dogs", "puppy", "puppies", "doggy", "cat", "cats", "kitten", "kittens"),
        *("pet", "pets", "bird", "birds", "parrot", "aquarium"),
        *("hamster", "rabbit", "kutta", "kutte", "kutton", "billi", "perro", "gato"),
    )
)


def asked(phrases: Iterable[str]) -> bool:
    """Whether the phrases (the model's reading, keywords, categories) name an animal."""
    return any(term in ANIMALS for phrase in phrases for term in text.terms(phrase))


def for_animals(product: Product) -> bool:
    """Whether the product's department says it is for animals."""
    if _names(product.category_l2 or ""):
        return True
    top = product.category_l1 or ""
    return _names(top) and not _SEVERAL.search(top)


# A top category that lists several departments ("home, kitchen, pets").
_SEVERAL = re.compile(r",|&|\band\b", re.IGNORECASE)


def _names(words: str) -> bool:
    return not ANIMALS.isdisjoint(text.terms(words))
