"""How old the one a product is for is, as its title says, against the age the shopper states:
"for my 8 year old son" asked, a "Pre School Bag 3-6 Years" and a "Walker for Babies 6-18
Months" are for other ages and are served after the rest (the retrieval set-aside,
catalog/aside.py), never dropped. A title that states no age is for any ("Kids School Bag").

A request states one age, in years or months: "8 year old", "10 years", "a 6 month old", in
Hindi "8 saal", in Spanish "7 años". A title states ages as ranges: "7-10 Years", "6 to 14
years", "for kids 6 to 14", "3+ Years", "6m+", "0-6 Months", "Age 5 & Up", "up to 3 years".
An age alone ("2 Years") is not read: it says too little of the ages around it, and is often
no one's. Years that are a warranty's, a guarantee's or a shelf life's are no one's age ("5
Years Warranty", "2 yrs onsite"); an animal's are ("Adult (1+ Years) Cat Food"), but a
shopper who states a child's age names no animal, and such products are served after already
(catalog/animals.py).
"""

import math
import re
from collections.abc import Iterable

from catalog import measures

Ages = tuple[float, float]  # from, to, in years (to: infinite for "3+ years")
CHILDHOOD = 13.0  # a child's age is under it

_YEARS = r"years?|yrs?|saal|sal|años|anos"
_MONTHS = r"months?|mths?"
_UNIT = rf"({_YEARS}|{_MONTHS})"
_BEFORE = r"(?<![\w.,])"
# A request's age: "8 year old", "8-year-old", "10 years", "8 saal", "a 6 month old".
_ASKED = re.compile(rf"{_BEFORE}(\d{{1,2}})\s?-?\s?{_UNIT}(?:\s?-?\s?old)?(?!\w)")
# A title's ages: a range, "7-10 years", "6 to 14 years", "6 months - 3 years" (the first
# number in the second's unit unless it has its own).
_RANGE = re.compile(
    rf"{_BEFORE}(\d{{1,2}})\s?(?:{_UNIT}\s?)?(?:-|\u2013|to)\s?(\d{{1,2}})\s?{_UNIT}(?!\w)"
)
# Open ranges: "3+ years", "3 years+", "6m+", "3y+", "5 & up", "3 years and above", "above 3
# years" (a bare "m" or "y" only before a plus: "5m" is five metres).
_OPEN = (
    re.compile(rf"{_BEFORE}(\d{{1,2}})\s?\+\s?{_UNIT}(?!\w)"),
    re.compile(rf"{_BEFORE}(\d{{1,2}})\s?({_YEARS}|{_MONTHS})\s?\+(?!\s?\d)"),
    re.compile(rf"{_BEFORE}(\d{{1,2}})(m|y)\+(?!\s?\d)"),
    re.compile(rf"{_BEFORE}(\d{{1,2}})\s?(?:{_UNIT}\s?)?(?:&|and)\s?(?:up|above)\b"),
    re.compile(rf"\b(?:above|over)\s(\d{{1,2}})\s?{_UNIT}(?!\w)"),
)
# Up to an age: "up to 3 years", "below 5 years", "new born baby to 3 year old". An age alone
# ("2 Years") says too little of the ages around it, and is often no one's.
_UP_TO = re.compile(rf"\b(?:up\s?to|upto|till|until|below|under|to)\s(\d{{1,2}})\s?{_UNIT}(?!\w)")
# A child's age as the catalog writes it without a unit: "for kids 6 to 14", "age 3-8".
_KIDS = re.compile(
    r"\b(?:age|ages|aged|kids|children|boys|girls|child)\s(?:of\s)?(\d{1,2})\s?(?:-|\u2013|to)\s?"
    rf"(\d{{1,2}})(?![\w%]|\.\d|\s?(?:{_MONTHS}|{measures.UNIT_PATTERN}|pcs|pc|pack|packs|pieces)\b)"
)
# Years that are no one's age: a warranty's, a guarantee's, a shelf life's ("5 Years Warranty",
# "2 yrs onsite", "warranty of 1 year").
_AFTER = re.compile(
    r"\W{0,3}(?:[a-z]+\W{1,3}){0,2}?(?:warranty|warrenty|wrranty|guarantee|onsite|on-site|"
    r"replacement|shelf|battery|experience|legacy|anniversary)\b"
)
_AHEAD = re.compile(
    r"(?:warranty|warrenty|wrranty|guarantee|shelf life|battery life|emi)\W{0,3}"
    r"(?:of|for|upto|up to)?\W{0,2}$"
)
# A request's age that is a bound or a range says no one age ("above 5 years", "5-7 year old").
_ASKED_BOUND = re.compile(
    r"(?:\b(?:above|over|below|under|up\s?to|upto|at\s?least|at\s?most)|\d\s?(?:-|\u2013|to))\s?$"
)


def asked(texts: Iterable[str]) -> float | None:
    """The age in years the first of `texts` that states one states ("for my 8 year old": 8, "a
    6 month old": 0.5), None when none does."""
    for text in texts:
        lowered = text.lower()
        for match in _ASKED.finditer(lowered):
            before = lowered[max(0, match.start() - 12) : match.start()]
            bound = _ASKED_BOUND.search(before) or lowered[match.end() : match.end() + 1] == "+"
            if not _no_one_s(lowered, match) and not bound:
                return _years(float(match.group(1)), match.group(2))
    return None


def stated(title: str) -> tuple[Ages, ...]:
    """The ages a title says the product is for, each a range in years."""
    lowered = title.lower()
    found: dict[Ages, None] = {}
    taken: list[tuple[int, int]] = []

    def add(match: re.Match[str], ages: Ages) -> None:
        if not _no_one_s(lowered, match) and not _within(match.span(), taken):
            found[ages] = None
            taken.append(match.span())

    for match in _RANGE.finditer(lowered):
        low, first, high, unit = match.groups()
        ages = (_years(float(low), first or unit), _years(float(high), unit))
        if ages[0] < ages[1]:
            add(match, ages)
    for pattern in _OPEN:
        for match in pattern.finditer(lowered):
            add(match, (_years(float(match.group(1)), match.group(2)), math.inf))
    for match in _UP_TO.finditer(lowered):
        add(match, (0.0, _years(float(match.group(1)), match.group(2))))
    for match in _KIDS.finditer(lowered):
        low, high = float(match.group(1)), float(match.group(2))
        if low < high:
            add(match, (low, high))
    return tuple(found)


def a_child_s(age: float | None) -> bool:
    """Whether the age asked is a child's."""
    return age is not None and age < CHILDHOOD


def contradicts(age: float | None, title: str) -> bool:
    """Whether `title` states ages for the product and none takes in the `age` asked."""
    if age is None:
        return False
    ranges = stated(title)
    return bool(ranges) and not any(low <= age <= high for low, high in ranges)


def _years(number: float, unit: str | None) -> float:
    """A number of `unit` in years (months: a twelfth; none or years: as it is)."""
    return number / 12 if unit is not None and unit.startswith("m") else number


def _no_one_s(lowered: str, match: re.Match[str]) -> bool:
    """Whether the years of `match` are a warranty's or a shelf life's, not an age."""
    before = lowered[max(0, match.start() - 20) : match.start()]
    return bool(_AFTER.match(lowered, match.end()) or _AHEAD.search(before))


def _within(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(start < span[1] and span[0] < end for start, end in taken)
