"""Spelling corrections of the fuzzy tier: the catalog word a shopper's word most likely
misspells, chosen from the catalog's own vocabulary (catalog.models.SearchWord) by the
database's trigram search (catalog/fulltext.py), then checked word by word here.

A word is corrected only when the catalog does not know it, or knows it from at most RARE
products while its correction is at least COMMONER times as common and begins with the same
letter (catalogs misspell too: "matress"; "couch" is no misspelling of "pouch"), or when no
title writes it and the stemmer cut it to another word some do ("earings": ear; corrected only
one edit away, into a word of its first letter: "earrings"). A correction is within one edit,
two for words of eight letters or more (a swap of neighbours is one), one more for a word the
catalog does not know where a correction no shorter sounds alike (`sounds`: "shampu",
"shampoo"), shares at least SIMILARITY of the word's trigrams, and is held by
products now. One of the same first letter wins ("sandles" are sandals, not handles), then the
fewest edits, then one that titles write beside the word's neighbour in its keyword (`beside`:
"watch stap" is a watch strap, though "star" is far commoner; "ear bads" are earbuds, not
beds), then one that sounds like the word ("chargr" is a charger, not a charge), the most
common, the alphabet.
"""

import re
from collections.abc import Sequence

from catalog import compounds, fulltext, text

SIMILARITY = 0.3
RARE = 3
COMMONER = 10
MAX_CORRECTED = 30  # letters: a longer "word" is not a misspelling worth the edit distance
# Letters the stemmer cuts from a word, at least, for its stem to be read as another word.
CLIPPED = 3
# The words spelled most like it that are checked, and the cap on counting a word's products
# (a word held by this many is common enough to win any comparison that matters).
CANDIDATES = 60
COUNTED = 1000
# Products holding a correction beside the word's neighbour for the pair to decide it, and
# the count past which pairs are not told apart.
BESIDE = 2
PAIRED = 20

# The words either side of a word in its keyword (stop words skipped), as written or stems.
Beside = tuple[str | None, str | None]
ALONE: Beside = (None, None)


def correction(word: str, *, stemmed: bool = False, beside: Beside = ALONE) -> str | None:
    """The clean catalog word `word` most likely misspells, or None. A `stemmed` word (a
    stem: "ketl" of "ketle") is compared with each candidate's stem ("kettl" of "kettle").
    `beside`: the words either side of it in its keyword."""
    if not 4 <= len(word) <= MAX_CORRECTED or not word.isalpha():
        return None
    known = fulltext.documents_with(text.stem(word), RARE + 1)
    # No title writes the word, and its stem is another word's ("earings": ear): a slip of one
    # letter, into a word of its first letter, is still corrected.
    clipped = known > RARE and _clipped(word)
    if known > RARE and not clipped:
        return None
    known = 0 if clipped else known
    wanted = fulltext.trigrams(word)
    allowed = 1 if clipped or len(word) < 8 else 2
    sound = sounds(word)
    best: tuple[bool, int, int, bool, int, str] | None = None
    for candidate in _candidates(word):
        # More letters apart than edits allowed, or too few trigrams shared: not a spelling of
        # it (and no edit distance computed).
        form = text.stem(candidate) if stemmed else candidate
        # One edit more for a word the catalog does not know, where the candidate sounds like
        # it and is no shorter (a shopper drops letters: "shampu"; "mixie" is no "mix").
        alike = sounds(form) == sound
        within = allowed + (alike and not known and not clipped and len(form) >= len(word))
        if candidate == word or abs(len(form) - len(word)) > within:
            continue
        if clipped and candidate[0] != word[0]:
            continue
        if len(wanted & fulltext.trigrams(candidate)) / len(wanted) < SIMILARITY:
            continue
        if text.stem(candidate) == text.stem(word):
            continue
        distance = edits(word, form)
        if distance > within:
            continue
        # A word the catalog knows is corrected only into one of its first letter: a
        # catalog's own misspelling keeps it ("matress"), another first letter makes another
        # word ("couch", "pouch").
        if known and candidate[0] != word[0]:
            continue
        common = fulltext.documents_with(text.stem(candidate), COUNTED)
        if not common or (known and common < COMMONER * known):
            continue
        paired = _paired(candidate, beside) if beside != ALONE else 0
        ranked = (candidate[0] != word[0], distance, -paired, not alike, -common, candidate)
        if best is None or ranked < best:
            best = ranked
    return best[-1] if best else None


def _candidates(word: str) -> list[str]:
    """The catalog's words spelled most like `word`, and those it is with two neighbouring
    letters swapped, which share few of its trigrams ("chian": chain)."""
    found = fulltext.spelled_like(word, CANDIDATES)
    swapped = (word[:at] + word[at + 1] + word[at] + word[at + 2 :] for at in range(len(word) - 1))
    return found + [spelt for spelt in swapped if spelt not in found and fulltext.is_word(spelt)]


def _paired(candidate: str, beside: Beside) -> int:
    """How many products (up to PAIRED) write `candidate` beside a neighbour of the word it
    corrects, as a phrase ("watch strap") or as one word ("earbuds"); 0 under BESIDE."""
    before, after = beside
    stem = text.stem(candidate)
    held: list[str | list[str]] = [[text.stem(before), stem]] if before else []
    held += [[stem, text.stem(after)]] if after else []
    joined = [before + candidate] if before else []
    joined += [candidate + after] if after else []
    held += [text.stem(one) for one in joined if fulltext.is_word(one)]
    count = max((fulltext.documents_with(term, PAIRED) for term in held), default=0)
    return count if count >= BESIDE else 0


def _neighbours(words: Sequence[str]) -> list[Beside]:
    """Each of `words`' neighbours, stop words skipped (a stop word has none)."""
    kept = [at for at, word in enumerate(words) if word not in text.STOP_WORDS]
    found = [ALONE] * len(words)
    for n, at in enumerate(kept):
        before = words[kept[n - 1]] if n else None
        after = words[kept[n + 1]] if n + 1 < len(kept) else None
        found[at] = (before, after)
    return found


def _clipped(word: str) -> bool:
    """Whether the stemmer cut a word no title writes down to another word some do: a
    misspelling whose stem means something else ("earings" to "ear", not "earrings")."""
    stem = text.stem(word)
    return (
        len(word) - len(stem) >= CLIPPED and not fulltext.is_word(word) and fulltext.is_word(stem)
    )


# Spellings of one sound, as a shopper writes a word they heard ("fone", "crikt").
_SOUNDS = (("ph", "f"), ("ck", "k"), ("ch", "ç"), ("c", "k"), ("q", "k"), ("z", "s"))
_QUIET = re.compile(r"[aeiouywh]")  # vowels, and letters that mostly lengthen one


def sounds(word: str) -> str:
    """What a word sounds like, roughly: its first letter and the consonants after it, one
    sound spelt one way, a letter doubled written once ("shampu" and "shampoo": "smp")."""
    key = word.lower()
    for spelt, sound in _SOUNDS:
        key = key.replace(spelt, sound)
    key = key[:1] + _QUIET.sub("", key[1:])
    return re.sub(r"(.)\1+", r"\1", key)


def edits(first: str, second: str) -> int:
    """Damerau-Levenshtein distance (adjacent swaps count one), for short words."""
    previous2: list[int] = []
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, start=1):
        current = [i] + [0] * len(second)
        for j, b in enumerate(second, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b))
            if i > 1 and j > 1 and a == second[j - 2] and first[i - 2] == b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


# --- The keywords as the tiers read them ------------------------------------------------------


def known(keywords: Sequence[str]) -> tuple[list[list[str]], set[str], list[str]]:
    """The keywords as the partial tier reads them: a word the catalog does not know read as
    the two words it holds standing together ("waterbottle": water bottle, catalog/compounds.py),
    else its misspelling corrected (below), else left out; and the corrected words, which are
    guesses. A word the catalog knows keeps its spelling here: "backpack" read also as "back
    pack" would count twice in the titles that say both; the partial tier adds the two words
    only where more titles write them so than whole (catalog/compounds.py). Last, the keyword
    each read one was read from."""
    read: list[list[str]] = []
    guessed: set[str] = set()
    sources: list[str] = []
    for keyword in keywords:
        terms: list[str] = []
        words = text.words(keyword)
        for word, beside in zip(words, _neighbours(words), strict=True):
            if word in text.STOP_WORDS:
                continue
            stem = text.stem(word)
            if not fulltext.documents_with(stem, 1) and (parts := compounds.split(word)):
                terms += parts
                continue
            fixed = correction(word, beside=beside)
            if fixed is not None:
                terms.append(text.stem(fixed))
                guessed.add(terms[-1])
            elif fulltext.documents_with(stem, 1):
                terms.append(stem)
        if terms:
            read.append(terms)
            sources.append(keyword)
    return read, guessed, sources


def respelt(keywords: Sequence[str]) -> list[str] | None:
    """The keywords with each misspelt word replaced by its correction (below), read beside
    the other words of its keyword before a long one is cut into phrases (catalog/phrases.py:
    "bed shet" is a bed sheet, "shet" alone a set); None when no word was corrected, or when a
    word the catalog does not know has none."""
    changed = False
    respelt: list[str] = []
    for keyword in keywords:
        words = text.words(keyword)
        spelt: list[str] = []
        for word, beside in zip(words, _neighbours(words), strict=True):
            if word in text.STOP_WORDS:
                spelt.append(word)
                continue
            fixed = correction(word, beside=beside)
            if fixed is None and not fulltext.documents_with(text.stem(word), 1):
                return None
            spelt.append(fixed or word)
            changed = changed or fixed is not None
        respelt.append(" ".join(spelt))
    return respelt if changed else None


def corrections(keywords: Sequence[str]) -> dict[str, str]:
    """The fuzzy tier's corrections of the keywords' misspelt words (word -> catalog word)."""
    found: dict[str, str] = {}
    for keyword in keywords:
        words = text.words(keyword)
        for word, beside in zip(words, _neighbours(words), strict=True):
            if word not in text.STOP_WORDS and (fixed := correction(word, beside=beside)):
                found.setdefault(word, fixed)
    return found


def spelt_right(phrase: str) -> str:
    """The phrase's words, each that the catalog does not know as its correction (`correction`)
    where the two begin alike: a shopper's slip keeps the first letter ("ketle"), a word of
    another language near one of this catalog's often does not ("ghadi", a watch, is no
    "khadi")."""
    words = text.words(phrase)
    fixed = [
        None
        if word in text.STOP_WORDS or fulltext.documents_with(text.stem(word), 1)
        else correction(word, beside=beside)
        for word, beside in zip(words, _neighbours(words), strict=True)
    ]
    return " ".join(
        right if right and right[0] == word[0] else word
        for word, right in zip(words, fixed, strict=True)
    )


def corrected_kinds(
    kinds: Sequence[Sequence[str]], said: Sequence[str] = ()
) -> tuple[tuple[str, ...], ...]:
    """The kinds of thing a request wants (catalog/types.py), and each with a word the catalog
    does not know, type or the word that says which, also as its correction ("smartwach":
    smartwatch; "vaccum cleaner": vacuum cleaner). A word is corrected as `said` writes it,
    where a word of it stems to the kind's: the stemmer cuts a misspelling further from the
    word meant than the shopper did ("bracelate" is "bracel", nearer "brace" than "bracelet")."""
    written = {text.stem(word): word for phrase in said for word in text.words(phrase)}
    found: dict[tuple[str, ...], None] = {}
    for kind in kinds:
        found[tuple(kind)] = None
        fixed = tuple(
            _known(word, beside, written.get(word))
            for word, beside in zip(kind, _neighbours(kind), strict=True)
        )
        found[fixed] = None
    return tuple(found)


def _known(word: str, beside: Beside, written: str | None = None) -> str:
    """The stem, or its correction's stem when the catalog does not know it: the correction
    of the word as written first, else of the stem."""
    if fulltext.documents_with(word, 1):
        return word
    fixed = (written and correction(written, beside=beside)) or correction(
        word, stemmed=True, beside=beside
    )
    return text.stem(fixed) if fixed else word
