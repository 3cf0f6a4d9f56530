"""What an accessory fits, as its title says after "for", against what the shopper's fits:
"a tripod for my DSLR camera" asked, "Gorilla Tripod for Mobile Phone" is for another device and
is served after the rest (the retrieval set-aside, catalog/aside.py), as a product for another
vehicle is (catalog/vehicles.py); never dropped. A title that names no device after "for" (or
"compatible", "fits") fits any, and one that names the shopper's among others ("Tripod for DSLR
Cameras and Smartphones") fits theirs.

Only what follows "for" is what a thing fits: "Laptop Table" is a table, whatever it stands on,
and "a laptop table for the bed" asks for one that stands on a bed, not one made for nothing but
a bed; a device the shopper ruled out ("not the stroller kind") is none they asked for.

The devices are classes of words for the things accessories are made to fit: a phone, a camera,
a laptop, a tablet, a television; a stroller, and a baby's cradle or cot, which nets, covers and
sheets are cut for apart; a bed. A word that also names something else ("notebook" a paper one,
"tab" a tab of anything, "swing" a playground's) is none of them.
"""

from collections.abc import Collection, Iterable, Sequence

from catalog import text

_CLASSES: dict[str, str] = {
    text.stem(word): device
    for words, device in (
        (("phone", "phones", "mobile", "mobiles", "smartphone", "smartphones"), "phone"),
        (("iphone", "iphones", "cellphone", "cellphones"), "phone"),
        (("camera", "cameras", "dslr", "dslrs", "mirrorless", "camcorder", "gopro"), "camera"),
        (("laptop", "laptops", "macbook", "macbooks"), "laptop"),
        (("tablet", "tablets", "ipad", "ipads"), "tablet"),
        (("tv", "tvs", "television", "televisions"), "television"),
        (("stroller", "strollers", "pram", "prams"), "stroller"),
        (("cradle", "cradles", "jhula", "crib", "cribs", "cot", "cots"), "cradle"),
        (("bed", "beds"), "bed"),
    )
    for word in words
}
_FITS = frozenset(text.stem(word) for word in ("for", "compatible", "fits"))


def asked(phrases: Iterable[str], ruled_out: Iterable[str] = ()) -> tuple[str, ...]:
    """The devices the phrases (the model's reading of the request, its keywords) name after
    "for", but those the phrases `ruled_out` name."""
    named = set().union(*(_fitted(text.terms(phrase)) for phrase in phrases))
    excluded = set().union(*(_named(text.terms(phrase)) for phrase in ruled_out))
    return tuple(sorted(named - excluded))


def for_others(wanted: Collection[str], title: str) -> bool:
    """Whether the title names devices after "for" and none of `wanted`."""
    if not wanted:
        return False
    named = _fitted(text.terms(title))
    return bool(named) and not named & set(wanted)


def _fitted(terms: Sequence[str]) -> set[str]:
    """The devices named after the first word that says what a thing fits."""
    for position, term in enumerate(terms):
        if term in _FITS:
            return _named(terms[position + 1 :])
    return set()


def _named(terms: Sequence[str]) -> set[str]:
    return {_CLASSES[term] for term in terms if term in _CLASSES}
