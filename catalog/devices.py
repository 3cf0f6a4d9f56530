"""What an accessory fits, as its title says after "for", against what the shopper's fits:
"a tripod for my DSLR camera" asked, "Gorilla Tripod for Mobile Phone" is for another device and
is served after the rest (the retrieval set-aside, catalog/aside.py), as a product for another
vehicle is (catalog/vehicles.py); never dropped. A title that names no device after "for" (or
"compatible") fits any, and one that names the shopper's among others ("Tripod for DSLR
Cameras and Smartphones") fits theirs.

Only what follows "for", up to an aside or what the thing comes with, is what a thing fits: a
"Laptop Table" is a table whatever it stands on, and "Back Cover for Samsung M31 with Camera
Protection" a phone's. A request that names a device after "for" accepts every device it names
("laptop table for bed": a bed's, and a laptop's "Bed Table for Laptop"), but those the shopper
ruled out ("not the stroller kind").

The devices are classes of whole words for the things accessories are made to fit: a phone, a
camera, a laptop, a tablet, a television; a stroller, and a baby's cradle or cot, which nets,
covers and sheets are cut for apart; a bed. A word that also names something else ("notebook" a
paper one, "tab" a tab of anything, "swing" a playground's) is none of them; whole words, so
"mobility" names no mobile and "bedding" no bed.
"""

import re
from collections.abc import Collection, Iterable

_CLASSES: dict[str, str] = {
    word: device
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
# Whole words, as written: "mobility" is no mobile, "bedding" no bed.
_WORD = re.compile(r"[a-z0-9]+")
# What a thing fits, written after it: "Tripod for Mobile Phone", "Case Compatible with iPhone".
_FITS = re.compile(r"\b(?:for|compatible(?:\s+with)?)\b", re.IGNORECASE)
# Where what it fits ends: an aside, a bar, what it comes with ("Back Cover for Samsung M31 with
# Camera Protection" fits a phone, not a camera); a list of what it fits goes on past commas.
_END = re.compile(r"[|(\[]|\bwith\b|\s-\s", re.IGNORECASE)


def asked(phrases: Iterable[str], ruled_out: Iterable[str] = ()) -> tuple[str, ...]:
    """The devices the phrases (the model's reading of the request, its keywords) name after
    "for", and with them any other they name ("laptop table for bed": a laptop's table for a
    bed); none where nothing is named after "for", and never those the phrases `ruled_out`
    name."""
    phrases = list(phrases)
    if not set().union(*map(_fitted, phrases)):
        return ()
    named = set().union(*map(_named, phrases))
    excluded = set().union(*map(_named, ruled_out))
    return tuple(sorted(named - excluded))


def for_others(wanted: Collection[str], title: str) -> bool:
    """Whether the title names devices after "for" and none of `wanted`."""
    if not wanted:
        return False
    named = _fitted(title)
    return bool(named) and not named & set(wanted)


def _fitted(phrase: str) -> set[str]:
    """The devices named in what the phrase says a thing fits: after its first "for" or
    "compatible", up to the end of that part."""
    fits = _FITS.search(phrase)
    if fits is None:
        return set()
    rest = phrase[fits.end() :]
    end = _END.search(rest)
    return _named(rest[: end.start()] if end else rest)


def _named(phrase: str) -> set[str]:
    """The devices the phrase's words name."""
    return {_CLASSES[word] for word in _WORD.findall(phrase.lower()) if word in _CLASSES}
