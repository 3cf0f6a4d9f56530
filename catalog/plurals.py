"""Plurals the stemmer does not bring back to their noun: "shelves" and "shelf", "knives" and
"knife".

Snowball reads "shelves" as "shelv" and "shelf" as "shelf", so a shopper's "corner shelves" never
met "Bathroom Corner Shelf" in any tier, and a product's type ("Wall Shelves": catalog/types.py)
was another thing than the "wall shelf" asked for. The analyzer (catalog/text.py) reads each
plural below as its singular before it stems, in product documents and queries alike, as it
reads a British spelling as the American one (catalog/variants.py).

A plural is listed where it names a thing a shop sells or describes by. A word that ends in one
of ENDINGS is read the same way ("bookshelves": bookshelf); an ending that also ends other words
is not one of them ("olives" would no longer meet "olive", "pumice" would be read as a mouse).
Left out: "lives" (a verb as often as a noun), "feet" (a measure far more often than a foot:
catalog/types.py reads it so), and "men", "women", "children", which search reads as the
shopper a product is for (catalog/audiences.py).
"""

PLURALS: dict[str, str] = {
    "shelves": "shelf",
    "knives": "knife",
    "scarves": "scarf",
    "leaves": "leaf",
    "halves": "half",
    "loaves": "loaf",
    "wolves": "wolf",
    "calves": "calf",
    "thieves": "thief",
    "hooves": "hoof",
    "wives": "wife",
    "teeth": "tooth",
    "mice": "mouse",
}
# Plurals that end words made with them ("bookshelves", "penknives").
ENDINGS = ("shelves", "knives")


def singular(word: str) -> str:
    """`word` (lower case) as its singular where it is a plural listed above, or ends in one of
    ENDINGS."""
    if (one := PLURALS.get(word)) is not None:
        return one
    for plural in ENDINGS:
        if word.endswith(plural):
            return word[: -len(plural)] + PLURALS[plural]
    return word
