"""What a product is: its type, read from its title as a person reads one.

Titles name the product first and what it fits after: "Cycle Bell for Bicycle" is a bell,
"Wildcraft Backpack with Rain Cover" a backpack, "Aones Watch Strap Compatible for Titan" a
strap. A title's type is the last word of its first phrase that names a thing: the title is cut
at what starts another phrase ("for", "with", "compatible", "(", "|", ",", " - " ...), and in
each phrase, in order, the words that name no thing are set aside from its end (colours, sizes,
measures, model numbers, pack counts, the shopper it is for, a model's code in capitals right
after the thing: "Electric Kettle PKOSS"); the last word left is the type. "Light" ending a
phrase names a thing ("Cycle Light"), before another word a colour ("Light Blue").
The title's first word, which is often a brand ("Mi 138 cm (55 inches) ... Smart LED TV"), names
the product only when nothing else in its phrase does, and a word alone only before what it is
for or comes with ("Lunchbox with 3 Compartments"; after a brand's aside, a list or "without"
the name goes on: "INOVERA (LABEL) Women Handbag"); a first phrase that is a brand and a
model's name ("JBL Go 2, Wireless Portable Bluetooth Speaker"), its number a measure or not
("Agaro Rapid 1000-Watt, Wet & Dry Vacuum Cleaner"), leaves the type to the next.
A title that names nothing gives its category's type ("Running Shoes": shoe).

A type is stored as the stem of that word (catalog/text.py), so "Shoes" and "shoe" are one
type, and a single letter hyphened to a word is one word with it ("T-Shirt": tshirt). A catalog
may send a product's type itself (the import's `product_type`); it wins. A query's wanted type
is read from the shopper's words the same way (`wanted_kinds`): "a rain cover for my backpack"
wants a cover, "women's watch with a metal strap" a watch; there, the first word is the type's
too.
"""

import re
from collections.abc import Iterable
from itertools import pairwise

from catalog import measures, synonyms, text

# The words that start what a thing is for or goes with (catalog/heads.py reads past them).
_PURPOSE_WORDS = "for|with|compatible|fits|suitable|including"
PURPOSE = re.compile(rf"\b(?:{_PURPOSE_WORDS})\b", re.IGNORECASE)
PURPOSE_TERMS = frozenset(text.stem(word) for word in _PURPOSE_WORDS.split("|"))
# Where a title's next phrase starts: what the product fits, comes with, or is described by;
# in a shopper's words, a price or what is ruled out too.
_CUT = re.compile(
    rf"[()\[\]{{}}|,;:]|\s[-\u2013\u2014/]\s|\b(?:{_PURPOSE_WORDS}|featuring|includes|without"
    r"|free from|free of|except|but|not)\b"
    # a price's words before a figure: "under $50", "below 500 rs" (not "Under Eye Cream")
    r"|\b(?:under|below|above|between|within|upto)\b(?=\s*(?:rs\.?|inr|usd|\$|\u20b9)?\s*\d)",
    re.IGNORECASE,
)
# A title's word as the type reader takes it: letters and digits, an apostrophe or a hyphen
# inside ("women's", "t-shirt", "watch-nn6078").
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
# What a product is made of: a shopper who states it requires it (matching/recommend/
# requirements.py).
MATERIALS = frozenset(
    {"leather", "cotton", "silk", "steel", "stainless", "plastic", "wood", "wooden", "metal"}
    | {"metallic", "silicone", "rubber", "nylon", "polyester", "synthetic", "canvas", "denim"}
    | {"wool", "woolen", "woollen", "linen", "velvet", "satin", "bamboo", "ceramic", "brass"}
    | {"aluminium", "aluminum", "copper", "pu", "pvc", "eva", "tpe", "abs", "microfiber"}
)
# Colours ("cream" and "coffee" are not among them: in a title they name the thing, "Face
# Cream", "Instant Coffee"; as a colour they stand in brackets, which start another phrase).
COLOURS = frozenset(
    {"black", "white", "red", "blue", "green", "yellow", "pink", "purple", "orange", "brown"}
    | {"grey", "gray", "silver", "gold", "golden", "beige", "maroon", "navy", "multicolor"}
    | {"multicolour", "multi", "ivory", "transparent", "clear", "dark", "light", "rose", "teal"}
    | {"olive", "khaki", "peach", "wine", "mustard", "charcoal", "sky", "royal"}
)
# Words that count what comes together ("Kurta Set", "Socks Pack", "Combo"): no thing of their own.
COUNT_WORDS = frozenset(
    {"pc", "pcs", "piece", "pieces", "pack", "packs", "set", "sets", "pair", "pairs", "combo"}
)
COUNT_TERMS = frozenset(text.stem(word) for word in COUNT_WORDS)
# Words that name no thing, whatever they stand beside.
_NO_THING = (
    MATERIALS
    | COLOURS
    # measures and counts
    | {"cm", "mm", "m", "inch", "inches", "in", "ft", "feet", "kg", "g", "gm", "gms", "gram"}
    | {"grams", "ml", "l", "ltr", "ltrs", "litre", "litres", "liter", "liters", "w", "watt"}
    | {"watts", "v", "volt", "mah", "gb", "tb", "mb", "hz", "mp", "x", "xl", "xxl", "xs", "s"}
    | COUNT_WORDS
    | {"size", "sizes", "free", "qty", "count", "units", "unit", "nos", "no", "ton", "tons"}
    | {"star", "stars", "grade", "bpa", "speed", "small", "medium", "large", "big", "extra"}
    | {"cms", "uk", "us", "eu", "each"}  # "(12 Cms)", "UK 9 / EU 43", "75 gm Each"
    # who it is for, and words of sale
    | {"men", "mens", "man", "women", "womens", "woman", "ladies", "gents", "boys", "boy"}
    | {"girls", "girl", "kids", "kid", "children", "child", "baby", "babies", "unisex", "adults"}
    | {"adult", "toddlers", "infants", "new", "brand", "original", "gift", "gifts"}
    | text.SHOPPING
    | {"premium", "quality", "edition", "model", "series", "version", "collection", "design"}
    | {"style", "type", "variant", "year", "years", "month", "months", "days", "day", "hours"}
    | {"the", "a", "an", "of", "or", "and", "at", "is", "it", "as", "in", "on", "to", "by"}
    | {"from"}
    # what is said of the listing: "(Renewed)", "2 Years Warranty", "Apple Certified", "Wi-Fi"
    | {"renewed", "refurbished", "certified", "professional", "warranty", "value", "wi", "fi"}
    | {"wifi", "hd"}
    # what it is like, as titles say after the thing ("Yoga Mat Extra Thick")
    | {"thick", "thin", "soft", "hard", "heavy", "duty", "waterproof", "washable", "durable"}
    | {"high", "warm", "cosy", "cozy", "long", "single", "pure", "natural", "organic"}
    | {"portable", "lightweight", "foldable", "adjustable", "reusable", "rechargeable", "anti"}
    | {"comfortable", "breathable", "printed", "solid", "plain", "casual", "regular", "slim"}
    | {"fit"}  # how it sits: "Men's Jeans Regular Fit" is jeans
    | {"skid", "slip", "proof", "resistant", "compatible", "universal", "assorted"}
    | {"mini"}  # "Gorilla Tripod/Mini": a tripod
    | {"liquid"}  # the form it comes in: "Detergent Liquid", "Handwash Liquid"
)
_STOP = frozenset(text.stem(word) for word in _NO_THING)
# "Colour" says which colour after one ("Black Color", "Multi Colour").
_COLOUR_WORDS = frozenset({"color", "colour", "colors", "colours"})
# Words of colour that name a thing when nothing follows them.
_THINGS_LAST = frozenset({text.stem("light")})
# A phrase that ends in a number, or in a measure: "Go 2", "Rapid 1000-Watt".
_NAME_AND_NUMBER = re.compile(
    rf"\d[^\W_]*(?:[\s-]?(?:{measures.UNIT_PATTERN}|inch(?:es)?|v))?\s*$", re.IGNORECASE
)


# A brand's aside right after it: "INOVERA (LABEL) Women Handbag", "Digitek (DTR 480LW) (57
# Inch) Portable Tripod"; the name goes on after it.
_ASIDE_AFTER_FIRST = re.compile(r"^([^\W_][^\s()\[\]{}]*)\s*(?:[(\[{][^()\[\]{}]*[)\]}]\s*)+")


def _words(phrase: str) -> list[str]:
    """The phrase's words that may name a thing, as one word each ("t-shirt" and "t shirt":
    tshirt); a model number or measure ("x200", "55-inch", "1.5") is none of them."""
    found: list[str] = []
    for token in _TOKEN.findall(phrase.lower()):
        parts = token.replace("'", "").replace("\u2019", "").split("-")
        if any(char.isdigit() for char in token):
            # A number, a measure or a model ("55-inch", "l55m6-es"): only a whole word beside
            # one counts ("watch-nn6078sl01").
            found += [part for part in parts if part.isalpha() and len(part) > 3]
            continue
        joined: list[str] = []
        for part in parts:
            if joined and len(joined[-1]) == 1:
                joined[-1] += part  # "t-shirt", "e-book": one word
            else:
                joined.append(part)
        found += joined
    return found


def _kept(words: list[str]) -> list[str]:
    """The words that may name a thing; a colour's word that ends its phrase names one ("Cycle
    Light", not "Light Blue"), and "colour" after a colour names none ("Black Color", not "Hair
    Colour")."""
    return [
        word
        for at, word in enumerate(words)
        if len(word) > 1
        and not (word in _COLOUR_WORDS and at > 0 and words[at - 1] in COLOURS)
        and (
            text.stem(word) not in _STOP
            or (at == len(words) - 1 and text.stem(word) in _THINGS_LAST)
        )
    ]


def _head(words: list[str]) -> str | None:
    """The last word of a phrase that names a thing, as its stem."""
    kept = _kept(words)
    return text.stem(kept[-1]) if kept else None


# A listing that states a phone's memory and storage is a phone's, though its title names only
# the model ("Redmi 10 Power (Power Black, 8GB RAM, 128GB Storage)", "Galaxy M33 5G (6GB, 128GB
# Storage)"): no word of it says phone. Another device that states them names itself.
_MEMORY = re.compile(r"\bram\b|\d\s*gb\s*,\s*\d+\s*gb\s+storage\b", re.IGNORECASE)
_STORAGE = re.compile(r"\b(?:storage|rom)\b", re.IGNORECASE)
_NOT_A_PHONE = re.compile(
    r"\b(?:laptops?|notebooks?|tablets?|tab|ipad|pc|computers?|desktops?|chromebook|macbook"
    r"|stereo|player|tv|television|watch|smartwatch|router|projector)\b",
    re.IGNORECASE,
)
# What such a listing is, in the words shoppers use for it (the first its type).
PHONE_NAMES = ("smartphone", "mobile phone")
# A type's names that search reads as the product's tags (a phone's title holds none of them).
NAMED_BY_TYPE = {text.stem(PHONE_NAMES[0]): PHONE_NAMES}


def stated_names(title: str) -> tuple[str, ...]:
    """The names of what a title states it is by its specifications alone (a phone: PHONE_NAMES),
    none when it does not: search finds such a product by them (catalog/documents.py)."""
    if _MEMORY.search(title) and _STORAGE.search(title) and not _NOT_A_PHONE.search(title):
        return PHONE_NAMES
    return ()


def type_of(title: str, category: str | None = None, given: str | None = None) -> str:
    """The product's type: the stem of the word that names what it is, '' when nothing does."""
    if given and (found := _head(_words(given))):
        return found
    if stated := stated_names(title):
        return text.stem(stated[0])
    brand: str | None = None  # the title's first word, when its phrase holds nothing else
    model: str | None = None  # a model's name, when a phrase after it names nothing
    cleaned = _ASIDE_AFTER_FIRST.sub(r"\1 ", text.clean(title))
    phrases = _CUT.split(cleaned)
    if not _written_in_capitals(cleaned):
        phrases = [_without_model_code(phrase) for phrase in phrases]
    for position, phrase in enumerate(phrases):
        words = _words(phrase)
        if position == 0 and words:
            kept = _kept(words)
            if kept and kept[0] == words[0]:
                brand, kept = kept[0], kept[1:]  # the title's first word is often its brand
            if len(kept) == 1 and _NAME_AND_NUMBER.search(phrase) and len(phrases) > 1:
                model = text.stem(kept[0])  # "JBL Go 2": a brand, a name and a number
                continue
            if kept:
                return text.stem(kept[-1])
            if brand and len(words) == 1 and len(phrases) > 1 and _purpose_follows(cleaned):
                return text.stem(brand)  # "Lunchbox with 3 Compartments": a word alone is it
            continue  # "Lifelong Without Gear ... Cycle", "Gliders (From Liberty) ... Flat"
        if found := _head(words):
            return found
    if model:
        return model
    if category and (found := _head(_words(_CUT.split(category)[0]))):
        return found
    return text.stem(brand) if brand else ""


def _purpose_follows(title: str) -> bool:
    """Whether the title's first cut says what its first phrase is for or comes with ("for",
    "with", "compatible", ...), not a parenthesis, a list or a word like "without"."""
    cut = _CUT.search(title)
    return cut is not None and PURPOSE.fullmatch(cut.group().strip()) is not None


# Things whose names are written in capitals ("Smart LED", "Portable SSD").
_NAMED_IN_CAPITALS = frozenset({"led", "lcd", "dvr", "nvr", "cctv", "ssd", "hdd", "ups", "usb"})


def _written_in_capitals(title: str) -> bool:
    """Whether a title is written mostly in capitals (then capitals say nothing of a word)."""
    letters = [char for char in title if char.isalpha()]
    return sum(char.isupper() for char in letters) > 0.6 * max(len(letters), 1)


_THREE_CAPITALS = re.compile(r"[A-Z]{3}")


def _without_model_code(phrase: str) -> str:
    """The phrase without a word in capitals that ends it (before a model's number) right after
    a word that is not: a model's code ("Electric Kettle PKOSS", "Sandwich Maker PGMFD 01";
    not "6 inch HANDBAG", whose word before names nothing)."""
    if phrase.isascii() and not _THREE_CAPITALS.search(phrase):
        return phrase  # no word in capitals to end it: most phrases, read at every import
    tokens = [
        token
        for token in _TOKEN.finditer(phrase)
        if any(char.isdigit() for char in token.group()) or _kept([token.group().lower()])
    ]
    while tokens and any(char.isdigit() for char in tokens[-1].group()):
        tokens.pop()  # a model's number after its code
    if len(tokens) > 2 and _code(tokens[-1].group()) and _plain(tokens[-2].group()):
        return phrase[: tokens[-1].start()]  # not a brand's model ("Tronica RIDHAM 3")
    return phrase


def _code(word: str) -> bool:
    return (
        word.isalpha()
        and word.isupper()
        and len(word) >= 3
        and word.lower() not in _NAMED_IN_CAPITALS
    )


def _plain(word: str) -> bool:
    return word.isalpha() and not word.isupper()


Kind = tuple[str, ...]  # a wanted type's stem, after the one word that says which kind of it


def wanted_kinds(phrases: Iterable[str]) -> tuple[Kind, ...]:
    """The kinds of thing a request wants: each phrase's (the model's reading of the whole
    request, its first keyword) type, with the word before it that says which ("protein
    powder" wants a powder of protein, not a rooting powder), and the type's other names
    (catalog/synonyms.py: a bicycle is a cycle). A type alone, read before what it is for,
    gives way to the same type that says which ("refill for my mop" read "refill", its keyword
    "mop refill": a mop's refill, not a detergent's)."""
    found: dict[Kind, None] = {}
    before_purpose: set[Kind] = set()
    for phrase in phrases:
        parts, cuts = _CUT.split(phrase), [cut.group() for cut in _CUT.finditer(phrase)]
        at, kept = next(
            ((at, kept) for at, part in enumerate(parts) if (kept := _kept(_words(part)))),
            (0, []),
        )
        if not kept:
            continue
        which = tuple(text.stem(word) for word in kept[-2:-1])
        # "refill for my mop": a thing after a word of purpose ("watch for women" names none).
        for_a_thing = (
            at < len(cuts)
            and PURPOSE.fullmatch(cuts[at].strip()) is not None
            and bool(_kept(_words(parts[at + 1])))
        )
        for name in synonyms.same_thing(text.stem(kept[-1])):
            found[(*which, name)] = None
            if not which and for_a_thing:
                before_purpose.add((name,))
    said = {kind[-1] for kind in found if len(kind) > 1}
    return tuple(kind for kind in found if kind not in before_purpose or kind[-1] not in said)


def first_phrase(phrase: str) -> str:
    """A phrase up to where a title's next phrase would start ("for", "with", a comma...):
    what names the thing in a model's keyword that is the whole request ("stainless steel
    water bottle 1 litre" of "... for gym")."""
    return next((part for part in _CUT.split(phrase) if _words(part)), phrase)


def describes_only(phrase: str) -> bool:
    """Whether every word of a phrase names no thing: it describes ("durable", "high quality",
    "stainless steel") or says who it is for ("kids")."""
    words = _words(phrase)
    return bool(words) and not _kept(words)


def is_kind(kinds: Iterable[Kind], product_type: str, title: Iterable[str]) -> bool:
    """Whether a product of `product_type`, its title's terms `title`, is one of `kinds`; the
    word that says which kind may stand in the title as two ("Weight Lifting Belt" is a
    weightlifting belt), or end a word of two parts ("MicroSD Card" is an SD card)."""
    terms: list[str] | None = None
    for kind in kinds:
        if kind[-1] != product_type:
            continue
        if terms is None:
            terms = list(title)
        if all(
            word in terms or _written_apart(word, terms) or _ending(word, terms)
            for word in kind[:-1]
        ):
            return True
    return False


def _ending(word: str, terms: list[str]) -> bool:
    """Whether a term is `word` after another word of three letters or more ("microsd": sd)."""
    return len(word) > 1 and any(
        term.endswith(word) and len(term) - len(word) >= 3 and term.isalpha() for term in terms
    )


def _written_apart(word: str, terms: list[str]) -> bool:
    """Whether two terms standing together write `word` (stems: "weight", "lift" of
    "weightlift")."""
    return any(
        word.startswith(first) and text.stem(first + second) == word
        for first, second in pairwise(terms)
    )
