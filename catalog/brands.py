"""Whose a product is: its brand, as search knows it.

A product's brand key is the first word of the brand its catalog gives it (the import's `brand`),
or else the first word of its title: titles name their brand first ("boAt Rockerz 450 ...",
"Nivia Storm Football"). The key is that word in lower case, its letters and digits alone
("boAt": boat, "Levi's": levis). It is stored with the product's search document and rebuilt
with it.

Not every title starts with a brand ("Cycle Bell for Bicycle", "Women's Kurta"), so a word of a
query is a brand only where the catalog shows it is one (catalog/wanted.py): it leads the titles
(or is the brand) of several products, and of most products that hold it at all.
"""

import re

MAX_KEY = 64
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


def key_of(words: str) -> str:
    """The key of the first word of `words`: lower case, letters and digits alone."""
    found = _WORD.search(words.lower())
    if found is None:
        return ""
    key = "".join(char for char in found.group() if char.isalnum())
    return key[:MAX_KEY]


def brand_key(brand: str | None, title: str) -> str:
    """The key of a product's brand: the catalog's brand, else the title's first word."""
    return key_of(brand or "") or key_of(title)
