"""What a tier asks the full-text index for (Match), written in each database's query language:
PostgreSQL's `tsquery` and SQLite FTS5's query syntax (catalog/fulltext.py runs them).

Every stem is quoted as a whole term, so no word of a shopper's is ever read as an operator."""

from collections.abc import Sequence
from dataclasses import dataclass

from catalog.documents import FIELDS
from catalog.text import NEGATED_AFTER, NEGATING, NOT_NEGATING_AFTER

# PostgreSQL's four weights: the title A, tags and brand B, categories C, description D.
_WEIGHT = {"title": "A", "tags": "B", "brand": "B", "category": "C", "description": "D"}
# A phrase of more words than this is matched as all of its words, anywhere.
LONGEST_PHRASE = 6


@dataclass(frozen=True)
class Match:
    """What a tier looks for, in stems (text.query_terms)."""

    keywords: Sequence[Sequence[str]]  # a keyword is one stem, or a phrase's stems in order
    fields: Sequence[str] = FIELDS  # where the keywords may be found
    every: bool = True  # every keyword (else any one of them)
    exact_phrase: bool = False  # one keyword whose stems stand next to each other
    # Any one of these stems as well (with every=False: one of `keywords` and one of these).
    and_any: Sequence[str] = ()
    # A keyword of one stem is held only by a product that never names it as what it is
    # without: "pad" is not held by "Non Padded". The index reads documents, not mentions: a
    # product that names it both ways ("Non Padded, Padded Straps") is not held here either,
    # and the last check of loaded products (text.held_plainly) rules it out.
    plainly: bool = False


def _negations(term: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The phrases that name `term` as what a product is without ("non pad", "sugar free"),
    each with the longer phrase that holds it and does not ("blue free size"), or none."""
    before = [((word, term), ()) for word in sorted(NEGATING)]
    return [*before, ((term, NEGATED_AFTER), (term, NEGATED_AFTER, NOT_NEGATING_AFTER))]


def pg_term(term: str, weights: str = "") -> str:
    quoted = "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
    return f"{quoted}:{weights}" if weights else quoted


def pg_query(match: Match) -> str:
    weights = ""
    if set(match.fields) != set(FIELDS):
        weights = "".join(sorted({_WEIGHT[name] for name in match.fields}))

    def keyword(terms: Sequence[str]) -> str:
        words = [pg_term(term, weights) for term in terms]
        if len(words) == 1 and match.plainly:

            def phrase(stems: Sequence[str]) -> str:
                return "(" + " <-> ".join(pg_term(word, weights) for word in stems) + ")"

            negations = [
                f"({phrase(said)} & !{phrase(unless)})" if unless else phrase(said)
                for said, unless in _negations(terms[0])
            ]
            return f"({words[0]} & !({' | '.join(negations)}))"
        if len(words) == 1:
            return words[0]
        if match.exact_phrase:
            return "(" + " <-> ".join(words) + ")"
        if len(words) > LONGEST_PHRASE:
            return "(" + " & ".join(words) + ")"
        # Near: each word one or two places after the one before it, at most once two
        # (stop words hold no place in the index, so a word between may be gone).
        shapes = [" <-> ".join(words)]
        for gap in range(1, len(words)):
            shapes.append(
                "".join(
                    word if at == 0 else (" <2> " if at == gap else " <-> ") + word
                    for at, word in enumerate(words)
                )
            )
        return "(" + " | ".join(f"({shape})" for shape in shapes) + ")"

    joiner = " & " if match.every else " | "
    query = joiner.join(keyword(terms) for terms in match.keywords if terms)
    if match.and_any:
        also = " | ".join(pg_term(term, weights) for term in match.and_any)
        query = f"({query}) & ({also})"
    return query


def fts5_query(match: Match) -> str:
    def keyword(terms: Sequence[str]) -> str:
        words = [f'"{term}"' for term in terms]
        if len(words) == 1 and match.plainly:
            negations = [
                f'("{" ".join(said)}" NOT "{" ".join(unless)}")'
                if unless
                else f'"{" ".join(said)}"'
                for said, unless in _negations(terms[0])
            ]
            return f"({words[0]} NOT ({' OR '.join(negations)}))"
        if len(words) == 1:
            return words[0]
        if match.exact_phrase:
            return '"' + " ".join(terms) + '"'
        if len(words) > LONGEST_PHRASE:
            return "(" + " AND ".join(words) + ")"
        return f"NEAR({' '.join(words)}, {len(words) - 1})"

    joiner = " AND " if match.every else " OR "
    expression = joiner.join(keyword(terms) for terms in match.keywords if terms)
    if match.and_any:
        also = " OR ".join(f'"{term}"' for term in match.and_any)
        expression = f"({expression}) AND ({also})"
    if set(match.fields) == set(FIELDS):
        return expression
    return "{" + " ".join(match.fields) + "} : (" + expression + ")"
