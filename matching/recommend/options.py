"""What a caller asks of the pipeline beside the words: how many, where, through which channel,
and, for a search refined beyond the shopper's words and paged (UCP's catalog search), the
refinement.

A recommend answers one list; UCP's search filters it (categories and a price range that are
rules, not hints) and pages through it. The first page is a recommend with a Refinement: the
engine's resolution with the filters laid over it, the Intent, its cards, proposals and match
session recorded as for any recommend, and one product more retrieved than asked so that the
answer knows whether a next page exists (agents/ucp/catalog.py serves the next pages: the same
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


@dataclass(frozen=True)
class Options:
    """A recommend's options: `limit` cards at most, the `region` the shopper buys in (else the
    one the engine understood), the `channel` its buy links name, and a `refinement`."""

    limit: int
    region: str | None = None
    channel: str | None = None
    refinement: Refinement | None = None

    @property
    def retrieved(self) -> int:
        """How many products retrieval asks for: one more than asked when peeking."""
        peek = self.refinement is not None and self.refinement.peek
        return self.limit + 1 if peek else self.limit
