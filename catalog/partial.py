"""The partial tier of retrieval (catalog/search.py): some of the keywords' words. A product must
hold a word that names a product in one of them (catalog/heads.py) and ranks by the words it
holds, a rare word weighing more than a common one, so that a weak word ("kitchen") lowers a
product instead of removing them all. The keywords are read as the catalog writes them
(catalog/spelling.py, catalog/compounds.py): a word no title holds as the two words it stands
for, else corrected; two words also as the one word titles write ("eye liner"), a word also as
the two more titles write ("facewash"; where fewer do, a title holding the two side by side
holds the word where it names the product: "Shuttle Cock" is a shuttlecock), two one-word
keywords standing together in the normalized query (or following each other where it writes
them as one word: "sun", "screen" of "sunscreen") joined ("lap", "top"), and then neither
names a product alone ("sun" of "sun", "glasses" is no sun shade's); a word of two parts
counts once, as its parts,
whichever way a title writes it ("Eyeliner" holds eye and liner, "Eye Liner" eyeliner). A
material, a colour or a measure a constraint states comes first
(matching/recommend/requirements.py); a title stating the size asked holds its words however
written ("65 Ltrs": "65 litre", catalog/measures.py)."""

import math
from collections.abc import Sequence
from dataclasses import replace

from catalog import (
    compounds,
    fulltext,
    heads,
    meaning,
    measures,
    ordering,
    spelling,
    synonyms,
    text,
    types,
)
from catalog.query import SearchQuery
from catalog.retrieval import CANDIDATES, NOT_CATEGORY

# Words of a colour that never say which thing it is ("olive oil", "wine glass", "rose water",
# "gold coin" do): what a product looks like.
COLOURS = frozenset(
    text.stem(word)
    for word in types.COLOURS
    - {"olive", "mustard", "wine", "rose", "charcoal", "gold", "golden", "silver", "clear"}
    - {"light", "dark", "sky", "royal", "peach", "ivory", "teal", "khaki", "transparent"}
)
# What a title holds for each measure it states of those a constraint states ("65 litre
# capacity"), or of those asked beside a count (`_stated`): each counts as a required word does.
STATED = "measure stated"


def ids(query: SearchQuery, filters: fulltext.Filters, limit: int) -> list[int]:
    """The ids the partial tier finds for `query`, best first."""
    read, guessed, sources = spelling.known(query.keywords)
    wholes: dict[str, tuple[str, str]] = {}
    for keyword in list(sources):  # "eye liner" also as eyeliner, "facewash" as face wash
        for spelt in [*compounds.joined(keyword), *compounds.apart(keyword)]:
            read.append(spelt)
            sources.append(keyword)
            if found := compounds.whole_and_parts(keyword, spelt):
                wholes[found[0]] = found[1]
    # A keyword's word that fewer titles write as two ("shuttlecock": "Shuttle Cock"): those
    # hold it too, where its two stand together.
    written_apart: dict[str, tuple[str, str]] = {}
    for keyword in query.keywords:
        for spelt in compounds.spellings(keyword):
            if spelt in read or len(spelt) <= len(text.query_terms(keyword)):
                continue  # read already, or two words written as one
            if found := compounds.whole_and_parts(keyword, spelt):
                written_apart[found[0]] = found[1]
    halves: set[str] = set()  # of a word the keywords split: no product's name alone
    for word, first, second in compounds.joined_apart(query.reading, query.keywords):
        read.append([text.stem(word)])  # "lap", "top": laptop
        sources.append(word)
        halves |= {text.stem(first), text.stem(second)}
    units = text.model_units(query.keywords)
    outside = text.outside_units(query.keywords)
    guessed -= heads.confirmed(query.reading, guessed, units, outside)
    named = heads.named(read, sources, guessed, units, outside, query.reading)
    named = (named - halves) or named  # "sun", "glasses": sunglasses, not a sun shade
    return _partial(
        read,
        guessed,
        named,
        filters,
        limit,
        meaning.of(query),
        units,
        outside,
        query.required,
        query.measures,
        _stated(query),
        wholes,
        written_apart,
        [
            (frozenset(text.terms(part)), measures.measures(part))
            for keyword in query.keywords
            for part in measures.written(keyword)
        ],
        query.measure_bounds,
    )


def _stated(query: SearchQuery) -> tuple[measures.Measure, ...]:
    """The measures a title is to state, each counted: those a constraint states, and where the
    shopper asked how many come together or how many parts ("set of 2", "4 burner") every
    measure asked, since a title that states no count is most often of one: a "Bottle Set, 1
    Litre, Set of 2" holds more of "1 litre water bottles, set of 2" than a "Water Bottle, 1
    Litre" does, and a "5 kg" dumbbell as much of "pair of 5 kg dumbbells" as a "Set of Two"."""
    together = query.measures if measures.counted(query.measures) else ()
    return tuple(dict.fromkeys((*query.required_measures, *together)))


def _partial(
    keywords: list[list[str]],
    guessed: set[str],
    heads: set[str],
    filters: fulltext.Filters,
    limit: int,
    sense: meaning.Meaning | None = None,
    units: Sequence[tuple[str, ...]] = (),
    loose: set[str] | frozenset[str] = frozenset(),
    required: Sequence[str] = (),
    sizes: Sequence[measures.Measure] = (),
    stated: Sequence[measures.Measure] = (),
    wholes: dict[str, tuple[str, str]] | None = None,
    written_apart: dict[str, tuple[str, str]] | None = None,
    size_words: Sequence[tuple[frozenset[str], tuple[measures.Measure, ...]]] = (),
    bounds: Sequence[measures.Bound] = (),
) -> list[int]:
    """The products holding a word that names a product (`heads`: catalog/heads.py), those that
    state a size asked (`sizes`: catalog/measures.py) holding the words of each measure the
    keywords write that they state (`size_words`), however written ("65 Ltrs" holds "65 litre";
    a pair holds "pair" of "5 kg", "pair", not "5 kg"); those holding the most of the `required`
    words and the measures `stated` first (a constraint states them), before the named brand's,
    then what a keyword of two words or more names held whole (`_asked_whole`: a "Car Duster"
    for "car vacuum cleaner", "car duster"), then the wanted kind's (ordering.standing: a
    title's type can be misread, what the shopper stated cannot), then the most of the
    keywords' words, a word of two parts (`wholes`:
    "eyeliner", eye and liner) once however written, each word weighing more the fewer products
    hold it (a rare "cooker" outweighs a common "kitchen"), then those of the resolved
    categories, then by the database's score of every word. A word that names the product and
    that fewer titles write as two (`written_apart`: "shuttlecock", shuttle and cock) is held by
    a title holding the two side by side, which is asked for too. A size asked as a bound
    (`bounds`: "at least 60 litres") is stated by a title stating one within it. A corrected
    word (`guessed`) weighs least: a shopper's word in another language can be corrected into a
    rare word of this one ("ghadi" into "khadi"). A model number or measure (`units`: "1.5",
    "x200") counts only where its terms stand together; `loose`: the terms the keywords hold
    outside units too."""
    words = list(dict.fromkeys(term for keyword in keywords for term in keyword))
    if len(words) < 2:
        return []  # one word: the word tiers asked for it whole
    counted = [unit for unit in units if set(unit) <= set(words)]
    in_units = {term for unit in counted for term in unit} - loose
    # What counts, each once: a word, or a model number's terms standing together.
    weight: dict[str | tuple[str, ...], float] = {
        word: 1.0 if word in guessed else _weight(fulltext.documents_with(word, fulltext.COMMON))
        for word in words
        if word not in in_units
    }
    weight.update(
        {unit: _weight(fulltext.documents_with(unit, fulltext.COMMON)) for unit in counted}
    )
    if not heads:
        return []
    apart = {whole: parts for whole, parts in (written_apart or {}).items() if whole in heads}
    found = _holding_heads(heads, weight, filters, words, heads & guessed, apart)

    families = [(word, members) for word, members in synonyms.families().items() if word in weight]
    compound = {
        whole: parts for whole, parts in (wholes or {}).items() if {whole, *parts} <= weight.keys()
    }

    needed = set(required)
    markers = [(STATED, str(at)) for at in range(len(stated))]  # each measure stated, once

    def held(candidate: fulltext.Candidate) -> set[str | tuple[str, ...]]:
        fields = [ordering.terms(candidate, name) for name in ("title", "tags", "brand")]
        present: set[str | tuple[str, ...]] = {term for field in fields for term in field}
        present |= {unit for unit in counted if any(text.adjacent(unit, f) for f in fields)}
        present |= {word for word, members in families if members & present}  # steel: metal
        present |= {
            whole for whole, two in apart.items() if any(text.adjacent(two, f) for f in fields)
        }
        for whole, parts in compound.items():  # "microsd" holds micro and sd, and back
            if whole in present or any(text.adjacent(parts, field) for field in fields):
                present |= {whole, *parts}
        said = measures.measures(candidate.title) if sizes or stated else ()
        present |= {
            marker
            for marker, measure in zip(markers, stated, strict=True)
            if measures.among([measure], said, bounds)
        }
        for words_of, measured in size_words:
            if measures.among(measured, said, bounds):
                present |= words_of  # "65 Ltrs" holds "65 litre"
        # A required word the title names only as what the product is without ("without bag").
        present -= {
            word
            for word in needed
            if word in fields[0] and not text.held_plainly([word], fields[0])
        }
        return present & (weight.keys() | set(markers))

    def score(holds: set[str | tuple[str, ...]]) -> float:
        """The weights of the words held, a word of two parts once however written: the more of
        its weight whole and its parts' together."""
        total = sum(weight.get(item, 0.0) for item in holds)
        for one, (first, second) in compound.items():
            if one in holds:
                total -= min(weight[one], weight[first] + weight[second])
        return total

    whole = sum(weight.values())
    # Each candidate read once: reading a title's measures is the dearest part of it.
    holding = {candidate.product_id: held(candidate) for candidate in found}
    kept = [
        (candidate, score(holds) / whole)
        for candidate in found
        if (holds := holding[candidate.product_id]) & heads
    ]
    if sense is not None:
        # Of the wanted kind, named in the two words titles write apart ("Pen Drive" for
        # "pendrive"): the model of meaning knows the one word, not the two.
        unread = {
            candidate.product_id
            for candidate, _ in kept
            if candidate.typed and _written_apart(candidate, apart)
        }
        kept = meaning.fused(sense, kept, unread)
    # What a constraint requires first, then the named brand's, then what a keyword names held
    # whole (`_asked_whole`), then of the wanted kind ("Watch Strap" holds "watch" but is no
    # watch; ordering.standing), then by weight; stable: the database's order (categories
    # first, its score) within one weight.
    must: set[str | tuple[str, ...]] = {*required, *markers}
    things = _things_asked(keywords, heads, weight, counted)
    kept.sort(
        key=lambda pair: (
            -len(must & holding[pair[0].product_id]),
            *ordering.standing(pair[0])[:2],
            not _asked_whole(pair[0], holding[pair[0].product_id], things),
            *ordering.standing(pair[0]),
            -round(pair[1], 6),
        )
    )
    ordered = [candidate for candidate, _ in kept]
    return [
        candidate.product_id
        for candidate in ordering.ranked(ordered, keywords, limit, by_order=True)
    ]


# A thing a keyword asks for: what a product holds of the keyword, the names of its type, and
# the one word a title may write the keyword as.
Thing = tuple[list[str | tuple[str, ...]], set[str], str]


def _things_asked(
    keywords: list[list[str]],
    heads: set[str],
    weight: dict[str | tuple[str, ...], float],
    units: Sequence[tuple[str, ...]],
) -> list[Thing]:
    """The things keywords of two words or more name ("car duster" of "car vacuum cleaner",
    "car duster", "microfiber cloth": a model answering a use-case lists several), each as what
    a product holds of it (its words but a colour, which weighs as a word unless a constraint
    states it; its model numbers standing together), the names of its type, and the one word a
    title may write it as ("smartwatch")."""
    return [
        (
            [
                *(word for word in keyword[:-1] if word in weight and word not in COLOURS),
                *([keyword[-1]] if keyword[-1] in weight else []),
                *(unit for unit in units if set(unit) <= set(keyword)),
            ],
            {*synonyms.same_thing(keyword[-1]), "".join(keyword)},
            "".join(keyword),
        )
        for keyword in keywords
        if len(keyword) > 1 and keyword[-1] in heads
    ]


def _asked_whole(
    candidate: fulltext.Candidate, holds: set[str | tuple[str, ...]], things: list[Thing]
) -> bool:
    """Whether a candidate is of the type a keyword names and holds that keyword whole: what
    one of the keywords asks for, before one of the wanted type that holds none ("Cylinder
    Vacuum Cleaner" for "car vacuum cleaner")."""
    return any(
        candidate.product_type in names
        and (
            (bool(items) and all(item in holds for item in items))
            or joined in ordering.terms(candidate, "title")
        )
        for items, names, joined in things
    )


def _written_apart(candidate: fulltext.Candidate, apart: dict[str, tuple[str, str]]) -> bool:
    """Whether the candidate's title names a word of `apart` only in its two words."""
    title = ordering.terms(candidate, "title")
    return any(whole not in title and text.adjacent(two, title) for whole, two in apart.items())


def _holding_heads(
    heads: set[str],
    weight: dict[str | tuple[str, ...], float],
    filters: fulltext.Filters,
    words: list[str],
    corrected: set[str] | frozenset[str] = frozenset(),
    apart: dict[str, tuple[str, str]] | None = None,
) -> list[fulltext.Candidate]:
    """The partial tier's candidates: products holding a head and another word of some weight
    (in a catalog of a million a head such as "shoe" is held by hundreds of thousands; the
    database ranks only its window of them), then those holding a head that few products
    hold (or a `corrected` head); the words that most products hold (a model's bare numbers)
    only score."""
    telling = [
        word
        for word, value in weight.items()
        if isinstance(word, str) and value > 1.0 and word not in heads
    ]
    apart = apart or {}
    also = [list(apart[head]) for head in sorted(heads) if head in apart]
    held = fulltext.Match(
        [*([head] for head in sorted(heads)), *also], fields=NOT_CATEGORY, every=False
    )
    found: list[fulltext.Candidate] = []
    if telling:
        both = replace(held, and_any=telling)
        found = fulltext.candidates(both, filters, CANDIDATES, scored=words)
    # A head alone, where few products hold it: one that most products hold, with nothing else
    # the shopper asked for, says little, and the database would walk the catalog for it.
    rare = [[head] for head in sorted(heads) if weight.get(head, 1.0) > 1.0 or head in corrected]
    rare += [list(apart[head]) for (head,) in rare if head in apart]
    if rare and len(found) < CANDIDATES:
        rest = replace(filters, exclude=(*filters.exclude, *(c.product_id for c in found)))
        alone = replace(held, keywords=rare)
        found += fulltext.candidates(alone, rest, CANDIDATES - len(found), scored=words)
    return found


def _weight(count: int) -> float:
    """A word's weight in the partial tier: 1 for a word fulltext.COMMON products hold, more the
    fewer."""
    return 1 + math.log2((fulltext.COMMON + 1) / (1 + count))
