"""Quantities a shopper states and a title states: "64gb", "1.5 litre", "1 ton", "65 L",
"5 m", "7 feet", a bicycle's "26T" wheel; counts: "pack of 3", "set of two", "5 pairs", "a
pair"; counts of a product's parts: "5 tier", "3 seater", "3 burner", "4 socket", "4 person";
and sizes of what is worn or fitted: "large", "XL", "(M)", "Double Extra Large" (diapers of
size L are not the XL ones).

A shopper who asks for a 64 GB memory card, a 65 litre rucksack or a 1 ton air conditioner
does not want the 256 GB card, the 48 litre rucksack or the 1.5 ton one, though each holds every
word asked for ("1.5 ton" reads as the words 1, 5 and ton). A measure is a number and a unit of
a known kind, read in one base per kind (a kilogram is 1,000 grams, a terabyte 1,024 gigabytes);
a product *contradicts* a wanted measure when its title states a measure of that kind and none
equal to it. Retrieval serves such products after every product that does not
(catalog/search.py), never in their place: a title that states no measure of the kind may still
be the thing ("SanDisk microSDXC card" of an unstated size). A total yields to each one's
measure where a title states both: "2.5 kg x 2pc (total = 5 kg)" is a pair of 2.5 kg dumbbells.
"""

import re
from collections.abc import Iterable, Sequence

# A kind of quantity, its base unit's name, and each unit word with its size in the base.
UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("gb", "gigabyte", "gigabytes"), ("gb", 1.0)),
    **dict.fromkeys(("tb", "terabyte", "terabytes"), ("gb", 1024.0)),
    **dict.fromkeys(
        ("l", "lt", "ltr", "ltrs", "litre", "litres", "liter", "liters", "litro", "litros"),
        ("l", 1.0),
    ),
    **dict.fromkeys(("ml", "millilitre", "millilitres", "milliliter", "milliliters"), ("l", 1e-3)),
    **dict.fromkeys(("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"), ("g", 1000.0)),
    **dict.fromkeys(("g", "gm", "gms", "gram", "grams", "gramos"), ("g", 1.0)),
    **dict.fromkeys(("ton", "tons", "tonne", "tonnes", "tonelada", "toneladas"), ("ton", 1.0)),
    **dict.fromkeys(("mm",), ("mm", 1.0)),
    **dict.fromkeys(("cm",), ("mm", 10.0)),
    # A tape's, a cable's, a hose's or a rope's metres: "5m", "3 Meter", "1.5-metre", "10 Mtr".
    # A baby's months written "6m+" or "0-6m" read as metres too, but no shopper asking for
    # metres wants a baby's product.
    **dict.fromkeys(
        ("m", "mtr", "mtrs", "metre", "metres", "meter", "meters", "metro", "metros"),
        ("mm", 1000.0),
    ),
    # Feet are a kind of their own, as inches are: "6 ft (1.8 m)" rounds the metres.
    **dict.fromkeys(("ft", "feet", "foot"), ("ft", 1.0)),
    # A screen's or a bag's inches are a kind of their own: "80 cm (32 inches)" rounds the
    # centimetres, and a shopper asks in either.
    **dict.fromkeys(("inch", "inches"), ("inch", 1.0)),
    **dict.fromkeys(("mah",), ("mah", 1.0)),
    **dict.fromkeys(("w", "watt", "watts"), ("w", 1.0)),
}
# How many of a part a product is made with, each part a kind of quantity of its own: a "5 tier"
# shoe rack (its "5 Shelves" or "5 Layer" are the same), a "3 seater" sofa, a "3 burner" stove,
# a "4 socket" extension board, a "3 ply" mask. Not units of measure: a title's type is read
# with them as words (catalog/types.py). Not an air conditioner's "3 star": its rating is no
# part, and the brand a shopper names beside it matters more than the star.
PARTS: dict[str, str] = {
    **dict.fromkeys(("tier", "tiers", "layer", "layers", "shelf", "shelves"), "tier"),
    **dict.fromkeys(("seater", "seaters", "seat", "seats"), "seater"),
    **dict.fromkeys(("burner", "burners"), "burner"),
    **dict.fromkeys(("socket", "sockets", "outlet", "outlets"), "socket"),
    **dict.fromkeys(("port", "ports"), "port"),
    **dict.fromkeys(("ply",), "ply"),
    **dict.fromkeys(("jar", "jars"), "jar"),
    **dict.fromkeys(("door", "doors"), "door"),
    **dict.fromkeys(("drawer", "drawers"), "drawer"),
    **dict.fromkeys(("step", "steps"), "step"),
    **dict.fromkeys(("blade", "blades"), "blade"),
    **dict.fromkeys(("compartment", "compartments"), "compartment"),
    # Whom it holds: a "4 person" tent, "for 6 people".
    **dict.fromkeys(("person", "persons", "people"), "person"),
}
# A range of parts wider than this states its two ends only ("2-40": 2 and 40).
MAX_SPAN = 10
# Not the "1" of "2 in 1 Step Stool" or "3-in-1 Jar". Several apart by slashes are each one
# ("a 2/4/6 person tent"), a range every one between ("6-8 person").
_PART = re.compile(
    r"(?<![\w.,])(?<!in )(?<!in-)(\d{1,2}(?:\s?[/\u2013-]\s?\d{1,2}){0,5})\s?-?\s?("
    + "|".join(sorted(PARTS, key=len, reverse=True))
    + r")(?!\w)"
)
# A number (thousands apart by commas, or a decimal point or comma: "10,000", "1.5", "1,5"),
# then a unit word standing alone (or run into the "x" of another measure: "5 mx 25 mm",
# "45mlx6"), a space or a hyphen between or nothing.
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.,]\d+)?"
# Any unit word, the longest first (catalog/types.py reads a model's name ending in one too).
UNIT_PATTERN = "|".join(sorted(UNITS, key=len, reverse=True))
_MEASURE = re.compile(rf"(?<![\w.,])({_NUMBER})\s?-?\s?({UNIT_PATTERN})(?!(?![x\u00d7][\s\d])\w)")
# A bicycle's wheel in inches as its makers write it, "26T" or "27.5T" (12 to 29 inches: a
# toddler's "4T" is a size of clothes).
_WHEEL = re.compile(r"(?<![\w.])(1[2-9]|2\d)(\.5)?\s?t(?!\w)")
# How many come together, a count: "pack of 3", "set of two", "5 pairs", "12 pcs", "2-pack";
# and "a pair" (or "in pair", "pair of"), two.
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10}
_COUNT = re.compile(
    rf"\b(?:pack|set|combo|box|bundle) of (\d{{1,3}}|{'|'.join(_NUMBER_WORDS)})(?!\w)"
    r"|(?<![\w.,])(\d{1,3})\s?-?\s?(?:pcs|pc|pieces|piece|pairs|pair|pack|packs|units|nos)(?!\w)"
    r"|\b(?:a|in|one|1) (pair)\b|^(pair) of\b|\b(pair)$"
)
# How many of a weight or a volume come together, written after it: "2kg*2", "45ml x 6,
# Lavender"; a length times a number is another dimension ("30 cm x 20", "45 cm x 3 m").
_COUNTED = ("g", "l")
_TIMES = re.compile(
    r"\s?[*x\u00d7]\s?(\d{1,2})(?!\w|[.,]\d)"
    rf"(?!\s?-?\s?(?:{UNIT_PATTERN}|[*x\u00d7])(?!\w))"
)
# A measure of all of them together, where the title states each one's too: "2.5 kg x 2pc
# (total = 5 kg)" is a dumbbell of 2.5 kg, not of 5.
_TOTAL = re.compile(r"(?:\btotal\b(?:\s?[:=]|\s(?:of|weight))?|=)\s?$")
COUNT = "count"
# A size of what is worn or fitted, on one ladder from "extra small" to "extra extra extra
# large": a word, each "extra" (or "x", or "double" before one) a step further ("X-Large",
# "Double Extra Large"), or letters of two or more ("XL", "XXL", "3XL", "XS"); one letter only
# where a size is plainly meant, in brackets, after "size" or in a list of sizes ("(L)",
# "Size M", "S, M, L, XL"): "5 L" is five litres, and a lone "m" or "s" is anything.
SIZE = "size"
_SIZE_STEPS = {"small": 2.0, "medium": 3.0, "large": 4.0, "s": 2.0, "m": 3.0, "l": 4.0}
_SIZE_WORD = re.compile(r"\b((?:(?:extra|x|double)[\s-]?)*)(small|medium|large)\b")
_LETTERS = r"\d?x{0,3}[sml]"
_SIZE_LETTERS = re.compile(
    r"(?<![\w'\u2019.-])(\d?x{1,3}[sl])(?![\w'\u2019-])|\(\s?([sml])\s?\)|\bsize:?\s?([sml])\b"
)
_SIZE_LIST = re.compile(
    rf"(?<![\w'\u2019.-])(?:{_LETTERS})(?:\s?[,/]\s?(?:{_LETTERS}))+(?![\w'\u2019-])"
)
# Two values count as equal within this share of the larger ("1.0 ton" is "1 ton").
TOLERANCE = 0.005

Measure = tuple[str, float]  # (the kind's base unit, the value in it)
# A measure asked as a bound: (kind, value, "min") for "at least 60 litres", "6 mm or more",
# (kind, value, "max") for "up to 2 kg", "at most 1 litre".
Bound = tuple[str, float, str]
_MORE = r"more than|over|above"
_LESS = r"less than|under|below"
# "no more than 5 kg" is at most, "not under 1 litre" at least.
_AT_LEAST = re.compile(
    rf"(?:\bat\s?least|\bminimum|\bmin\.?|(?<!no )(?<!not )\b(?:{_MORE})"
    rf"|\bnot? (?:{_LESS}))\s*$"
)
_AT_MOST = re.compile(
    rf"(?:\bat\s?most|\bup\s?to|\bmaximum|\bmax\.?|(?<!no )(?<!not )\b(?:{_LESS})"
    rf"|\bnot? (?:{_MORE}))\s*$"
)
_OR_MORE = re.compile(
    r"\s*(?:\+(?!\s?\d)|or more\b|or above\b|and above\b|or bigger\b|or larger\b)"
)
_OR_LESS = re.compile(r"\s*(?:or less\b|or below\b|and below\b|or smaller\b)")


def measures(text: str) -> tuple[Measure, ...]:
    """The measures a text states, in order, each once."""
    found: dict[Measure, None] = {}
    totals: dict[Measure, None] = {}
    lowered = text.lower()
    for match in _MEASURE.finditer(lowered):
        number, unit = match.groups()
        kind, size = UNITS[unit]
        digits = number.replace(",", "") if re.search(r",\d{3}", number) else number
        measure = (kind, round(float(digits.replace(",", ".")) * size, 6))
        total = _TOTAL.search(lowered[max(0, match.start() - 12) : match.start()])
        (totals if total else found)[measure] = None
        if kind in _COUNTED and (times := _TIMES.match(lowered, match.end())):
            found[(COUNT, float(times.group(1)))] = None
    for numbers, part in _PART.findall(lowered):
        for number in _listed(numbers):
            found[(PARTS[part], number)] = None
    for whole, half in _WHEEL.findall(lowered):
        found[("inch", float(whole) + (0.5 if half else 0.0))] = None
    for written in _COUNT.findall(lowered):
        count = next(filter(None, written))
        found[(COUNT, 2.0 if count == "pair" else float(_NUMBER_WORDS.get(count) or count))] = None
    kinds = {kind for kind, _ in found}
    found.update(dict.fromkeys(total for total in totals if total[0] not in kinds))
    found.update(dict.fromkeys((SIZE, step) for step in _sizes(lowered)))
    return tuple(found)


def _listed(numbers: str) -> list[float]:
    """The numbers of "2/4/6" or "6-8" (6, 7 and 8; "12-4" or "2-40": the two), or of "3"."""
    listed: list[float] = []
    for one in re.split(r"\s?/\s?", numbers):
        low, _, high = one.replace("\u2013", "-").partition("-")
        first, last = int(low), int(high or low)
        near = first <= last <= first + MAX_SPAN
        between = range(first, last + 1) if near else (first, last)
        listed += [float(number) for number in between]
    return listed


def _sizes(lowered: str) -> list[float]:
    """The sizes a lower-cased text states, as steps of the ladder (small 2, large 4, XL 5)."""
    steps = [
        _step(word, len(re.findall(r"extra|x|double", extras)))
        for extras, word in _SIZE_WORD.findall(lowered)
    ]
    letters = [next(filter(None, found)) for found in _SIZE_LETTERS.findall(lowered)]
    letters += [part for run in _SIZE_LIST.findall(lowered) for part in re.split(r"[\s,/]+", run)]
    for written in letters:  # "xl": large, one step further; "3xl": three; "xxs": small, two
        further = written[:-1]
        steps.append(_step(written[-1], int(further[0]) if further[:1].isdigit() else len(further)))
    return steps


def _step(size: str, further: int) -> float:
    """The ladder's step of a size `further` steps past it ("extra large": large, 1)."""
    return _SIZE_STEPS[size] + (further if size in ("large", "l") else -further)


def written(text: str) -> list[str]:
    """The parts of a text that state a measure or a count, as written ("65 litre")."""
    lowered = text.lower()
    patterns = (_MEASURE, _COUNT, _PART)
    return [found.group() for pattern in patterns for found in pattern.finditer(lowered)]


def without(text: str) -> str:
    """The text with its measures and counts left out ("water bottle 1 litre": water bottle,
    "shoe rack 5 tier": shoe rack)."""
    return _PART.sub(" ", _COUNT.sub(" ", _MEASURE.sub(" ", text.lower())))


def wanted(texts: Iterable[str]) -> tuple[Measure, ...]:
    """The measures a request states (its normalized query and keywords), each once."""
    found: dict[Measure, None] = {}
    for text in texts:
        found.update(dict.fromkeys(measures(text)))
    return tuple(found)


def bounded(texts: Iterable[str]) -> tuple[Bound, ...]:
    """The measures a request asks as bounds ("at least 60 litres", "6 mm or more", "up to
    2 kg"), each once: a title stating any measure within one states what was asked."""
    found: dict[Bound, None] = {}
    for text in texts:
        lowered = text.lower()
        for match in _MEASURE.finditer(lowered):
            before = lowered[max(0, match.start() - 20) : match.start()]
            if _AT_LEAST.search(before) or _OR_MORE.match(lowered, match.end()):
                side = "min"
            elif _AT_MOST.search(before) or _OR_LESS.match(lowered, match.end()):
                side = "max"
            else:
                continue
            found.update(
                dict.fromkeys((kind, value, side) for kind, value in measures(match.group()))
            )
    return tuple(found)


def counted(asked: Sequence[Measure]) -> tuple[Measure, ...]:
    """Of the measures asked, how many come together and how many parts the thing has ("set
    of 2", "4 burner"): a title that states neither is most often one of a kind, not the set."""
    parts = set(PARTS.values())
    return tuple(
        (kind, value) for kind, value in asked if (kind == COUNT and value >= 2) or kind in parts
    )


def contradicts(asked: Sequence[Measure], title: str, bounds: Sequence[Bound] = ()) -> bool:
    """Whether `title` states, for some kind of quantity asked, measures of that kind and none
    equal to the one asked (or within it, asked as a bound: `bounds`)."""
    if not asked:
        return False
    stated = measures(title)
    for kind, value in asked:
        of_kind = [amount for unit, amount in stated if unit == kind]
        if of_kind and not any(_meets(amount, kind, value, bounds) for amount in of_kind):
            return True
    return False


def states(asked: Sequence[Measure], title: str) -> bool:
    """Whether `title` states one of the measures asked, however written ("65 Ltrs" for
    "65 litre")."""
    return bool(asked) and among(asked, measures(title))


def among(
    asked: Sequence[Measure], stated: Sequence[Measure], bounds: Sequence[Bound] = ()
) -> bool:
    """Whether one of the measures asked is among those a title states (`measures`), or one
    within it where it was asked as a bound (`bounds`)."""
    return any(
        unit == kind and _meets(amount, kind, value, bounds)
        for kind, value in asked
        for unit, amount in stated
    )


def _meets(amount: float, kind: str, value: float, bounds: Sequence[Bound]) -> bool:
    """Whether a title's `amount` is the `value` asked of `kind`, or within it as a bound."""
    if _equal(amount, value):
        return True
    sides = {side for unit, bound, side in bounds if unit == kind and _equal(bound, value)}
    return ("min" in sides and amount > value) or ("max" in sides and amount < value)


def _equal(first: float, second: float) -> bool:
    return abs(first - second) <= TOLERANCE * max(abs(first), abs(second))
