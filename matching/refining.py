"""A search refined beyond the shopper's words, and its next pages (UCP's catalog search).

A recommend answers one list; UCP's search filters it (categories and a price range that are
rules, not hints) and pages through it. The first page is a recommend with a Refinement: the
engine's resolution with the filters laid over it, the Intent, its cards, proposals and match
session recorded as for any recommend, and one product more retrieved than asked so that the
answer knows whether a next page exists (agents/ucp_catalog.py serves the next pages: the same
retrieval, asked for further down, their cards recorded under the first page's Intent).
"""

from dataclasses import dataclass, replace

from catalog import search
from matching.engine.resolution import Budget, Resolution


@dataclass(frozen=True)
class Refinement:
    """What a caller fixes beyond the words: categories (any of them, as a filter) and a
    budget in dollars, each overriding what the engine understood; `peek` retrieves one
    product more than asked, to tell whether more follow."""

    categories: tuple[str, ...] = ()
    budget_min: float | None = None
    budget_max: float | None = None
    peek: bool = True

    def applied(self, resolution: Resolution) -> Resolution:
        budget = resolution.budget
        if self.budget_min is not None or self.budget_max is not None:
            budget = Budget(min=self.budget_min, max=self.budget_max)
        categories = list(self.categories) if self.categories else resolution.categories
        return replace(resolution, categories=categories, budget=budget)


@dataclass(frozen=True)
class Continuation:
    """Where a refined search stands after a page: the query it ran, and whether it found
    more than the page held."""

    query: search.SearchQuery
    more: bool
