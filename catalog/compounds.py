"""Words of two parts, written whole, hyphened or apart: "tshirt", "t-shirt" and "t shirt";
"eyeliner" and "eye liner"; "lunchbox" and "lunch box".

The analyzer reads "T-Shirt" and "t shirt" as two words and "tshirt" as one, so each spelling
finds only the titles written its way. The every-keyword tiers (catalog/search.py) therefore
also ask a keyword in its other spelling, where the catalog holds it: two words standing
together are asked as one ("eye liner": eyeliner) when products hold the joined word, and one
word as two ("lunchbox": lunch box) when products hold the two words standing together, the
first part a word of the catalog of three letters or more, or a single letter ("tshirt": t
shirt), or a word of four letters as its two halves ("wifi": "Wi-Fi"). The partial tier reads a
word the catalog does not hold as its two words (catalog/spelling.py), a keyword's two words
also as the one word titles write ("eye liner": eyeliner, so that eyeliners come before shelf
liners), a word also as the two words more titles write ("facewash": face wash; where fewer do,
as "backpack", a title holding the two side by side holds the word, and neither names the thing
alone), and two one-word keywords standing together in the model's normalized query joined
("lap", "top": laptop). What counts as held is read from the index (fulltext.documents_with),
kept as a statistic of the catalog (catalog/versions.py).
"""

from collections.abc import Iterable, Sequence
from itertools import pairwise

from catalog import fulltext, text, versions

# The shortest word split in two (only into its halves: "wifi"), and the shortest second part
# of a longer word (a first part is a single letter or at least this long too).
SHORTEST_WORD = 4
SHORTEST_PART = 3


def spellings(keyword: str) -> list[list[str]]:
    """The keyword's other spellings the catalog holds, as stems: at most one joined, one
    split."""
    words = [word for word in text.words(keyword) if word not in text.STOP_WORDS]
    found: list[list[str]] = []
    stems = [text.stem(word) for word in words]
    for at in range(len(words) - 1):
        joined = text.stem(words[at] + words[at + 1])
        if _held(joined):
            found.append([*stems[:at], joined, *stems[at + 2 :]])
            break
    for at, word in enumerate(words):
        if (parts := split(word)) is not None:
            found.append([*stems[:at], *parts, *stems[at + 1 :]])
            break
    return found


def joined(keyword: str) -> list[list[str]]:
    """The keyword with two of its words joined as the catalog holds them ("eye liner":
    eyeliner), as stems; none when the catalog holds no such word."""
    return [spelt for spelt in spellings(keyword) if len(spelt) < len(text.query_terms(keyword))]


def apart(keyword: str) -> list[list[str]]:
    """The keyword with its first word of two parts read as the two words, as stems, where more
    titles write them so than write the word whole, or both are common ("facewash": face wash;
    not "backpack": back pack); none otherwise, and none for a word no title holds whole
    (catalog/spelling.py reads that one in two already)."""
    words = [word for word in text.words(keyword) if word not in text.STOP_WORDS]
    for at, word in enumerate(words):
        if split(word) is None:
            continue
        if (parts := written_apart(word)) is not None:
            stems = [text.stem(each) for each in words]
            return [[*stems[:at], *map(text.stem, parts), *stems[at + 1 :]]]
        return []
    return []


def written_apart(word: str) -> tuple[str, str] | None:
    """The two words, as written, that more titles write for `word` than write it whole, or
    that are both common ("facewash": face, wash; "tablecloth": table, cloth; not "backpack");
    None for a word no title holds whole."""
    if (parts := split(word)) is None:
        return None
    whole = fulltext.documents_with(text.stem(word), fulltext.COMMON)
    two = fulltext.documents_with(list(parts), fulltext.COMMON)
    if not whole or (two <= whole and two < fulltext.COMMON):
        return None
    cut = next(
        (at for at in range(1, len(word)) if (text.stem(word[:at]), text.stem(word[at:])) == parts),
        len(word) - len(parts[1]),
    )
    return word[:cut], word[cut:]


def whole_and_parts(keyword: str, spelt: Sequence[str]) -> tuple[str, tuple[str, str]] | None:
    """The word written whole and the two it stands for, of a keyword and one of its other
    spellings (above): "eyeliner" and ("eye", "liner") of "eye liner" spelt eyeliner."""
    said = [text.stem(word) for word in text.words(keyword) if word not in text.STOP_WORDS]
    longer, shorter = (said, spelt) if len(said) > len(spelt) else (spelt, said)
    if len(longer) != len(shorter) + 1:
        return None
    at = next(
        (at for at, (one, other) in enumerate(zip(shorter, longer, strict=False)) if one != other),
        None,
    )
    if at is None or tuple(longer[at + 2 :]) != tuple(shorter[at + 1 :]):
        return None
    return shorter[at], (longer[at], longer[at + 1])


def joined_apart(reading: str, keywords: Sequence[str]) -> list[tuple[str, str, str]]:
    """Two one-word keywords that stand together in the model's reading of the request, or
    follow each other where the reading writes them as one word, joined as the catalog holds
    them, with the two: ["lap", "top", "table"] of "lap top table for bed" is a laptop table
    too, ["sun", "screen"] of "sunscreen spf 50" a sunscreen."""
    ones = [said[0] for keyword in keywords if len(said := text.words(keyword)) == 1]
    single = {text.stem(word) for word in ones}
    words = [word for word in text.words(reading) if word not in text.STOP_WORDS]
    found = [
        (first + second, first, second)
        for first, second in pairwise(words)
        if {text.stem(first), text.stem(second)} <= single and _held(text.stem(first + second))
    ]
    # Two keywords in a row that the reading writes as one word ("sun", "screen": sunscreen).
    read = {text.stem(word) for word in words}
    found += [
        (first + second, first, second)
        for first, second in pairwise(ones)
        if text.stem(first + second) in read and _held(text.stem(first + second))
    ]
    return list(dict.fromkeys(found))


def split(word: str) -> tuple[str, str] | None:
    """A word as the two words the catalog holds standing together, if it holds them."""
    if len(word) < SHORTEST_WORD or not word.isalpha():
        return None
    # Kept as the counts it reads are (fulltext.documents_with): each cut asks up to three.
    return versions.statistic("split", word, lambda: _split_anew(word))


def _split_anew(word: str) -> tuple[str, str] | None:
    if len(word) == SHORTEST_WORD:  # two halves of two letters, as titles hyphen them: "Wi-Fi"
        pair = (text.stem(word[:2]), text.stem(word[2:]))
        return pair if _held(pair) else None
    for cut in range(1, len(word) - SHORTEST_PART + 1):
        first, second = word[:cut], word[cut:]
        if 1 < len(first) < SHORTEST_PART or first in ("a", "i"):
            continue
        pair = (text.stem(first), text.stem(second))
        if _held(pair[1]) and (len(first) == 1 or _held(pair[0])) and _held(pair):
            return pair
    return None


def _held(term: str | Sequence[str]) -> bool:
    return fulltext.documents_with(term if isinstance(term, str) else list(term), 1) > 0


def kinds(wanted: Iterable[Sequence[str]], said: Iterable[str] = ()) -> tuple[tuple[str, ...], ...]:
    """The kinds of thing a request wants (catalog/types.py), each also as the catalog spells
    it otherwise: "lunchbox" is also a box of lunch ("Lunch Box": box), "bed sheet" a bedsheet.
    A word of two parts is split as the request `said` it, not as its stem: the stem of
    "floorcleaner" is "floorclean", whose halves would want a "clean", not a "cleaner"."""
    written = {text.stem(word): word for phrase in said for word in text.words(phrase)}
    found: dict[tuple[str, ...], None] = {}
    for kind in wanted:
        found[tuple(kind)] = None
        if len(kind) == 1 and (parts := split(written.get(kind[0], kind[0]))) is not None:
            found[parts] = None
        elif len(kind) == 2 and _held(joined := text.stem("".join(kind))):
            found[(joined,)] = None
    return tuple(found)
