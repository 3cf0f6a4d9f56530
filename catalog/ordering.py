"""The order inside a tier (catalog/search.py): the named brand's products of the wanted type
first (`standing`), then the resolved categories, the product itself before accessories of it,
then the database's score or the tier's own order."""

from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import groupby

from catalog import fulltext, text


def standing(candidate: fulltext.Candidate) -> tuple[bool, bool, bool]:
    """Where a candidate stands before any score, in every tier, lowest first: the brand the
    shopper names, of the wanted type; then that brand's other products; then the wanted type
    of other brands. A brand named is what the shopper holds to, and the type read from a title
    can miss ("Smartivity Hydraulic Crane" is a STEM kit), so the brand's products come before
    another brand's of the type; its accessories of the thing still come after the thing
    (`ranked`). Without a brand named, the wanted type first."""
    return (
        not (candidate.typed and candidate.branded),
        not candidate.branded,
        not candidate.typed,
    )


def ranked(
    candidates: list[fulltext.Candidate],
    keywords: Sequence[Sequence[str]],
    limit: int,
    keep: Callable[[fulltext.Candidate], bool] | None = None,
    *,
    by_order: bool = False,
    cheapest_first: bool = False,
) -> list[fulltext.Candidate]:
    """The best `limit` of the candidates that `keep` keeps: by `standing` first (the named
    brand's, and what the shopper asked for before what only mentions it), inside the resolved
    categories next, then
    the product itself before accessories of it (text.accessory_of), then by the database's
    score (`cheapest_first`: by price, then score), then by creator sales; the product id
    breaks the last ties.

    A candidate's text is read (its title analyzed) only as far down the order as it takes to
    find `limit` products: a few titles, not all of them. With `by_order`, the candidates'
    own order stands for all of it."""
    heads = [keyword[-1] for keyword in keywords if keyword]
    asked = {term for keyword in keywords for term in keyword}
    ordered = sorted(
        candidates,
        key=lambda candidate: (
            ()
            if by_order
            else (
                *standing(candidate),
                not candidate.in_categories,
                not candidate.near,
                price(candidate) if cheapest_first else 0.0,
                -round(candidate.score, 9),
                -candidate.sales,
                candidate.product_id,
            )
        ),
    )
    chosen: list[fulltext.Candidate] = []
    for _, group in groupby(
        ordered,
        key=lambda candidate: (
            *standing(candidate),
            candidate.in_categories,
            candidate.near,
        ),
    ):
        accessories = []
        for candidate in group:
            if keep is not None and not keep(candidate):
                continue
            if text.accessory_of(heads, terms(candidate, "title"), asked):
                accessories.append(candidate)
                continue
            chosen.append(candidate)
            if len(chosen) >= limit:
                return chosen
        chosen.extend(accessories)
        if len(chosen) >= limit:
            return chosen[:limit]
    return chosen


def price(candidate: fulltext.Candidate) -> float:
    """A candidate's price for the order, a product without one after every priced product."""
    return candidate.price if candidate.price is not None else float("inf")


def terms(candidate: fulltext.Candidate, name: str) -> tuple[str, ...]:
    """A field of a candidate as the analyzer reads it (stop words kept: phrases count them)."""
    if name == "title":
        return _read(candidate.title)
    if name == "tags":
        return _read(" . ".join(candidate.tags))
    if name == "brand":
        return _read(candidate.brand or "")
    return _read(f"{candidate.category_l1 or ''} . {candidate.category_l2 or ''}")


@lru_cache(maxsize=4096)
def _read(field: str) -> tuple[str, ...]:
    """A field's terms, once per process for the fields read most (a tier reads each
    candidate's title several times, and the best sellers' in every query)."""
    return tuple(text.terms(field))
