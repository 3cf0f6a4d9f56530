"""`AnyOf(F("field"), values)`: Django's `__in`, sent to PostgreSQL as one array parameter.

A batch of the catalog import names hundreds of products and videos at once. As `IN (%s, %s,
...)`, every value is a placeholder of its own: Django compiles each, and psycopg splits the
statement's text at each of them again for every batch (statements that long are not in its
cache), a sizeable share of the import's time on PostgreSQL (docs/benchmarks.md). `= ANY(%s)`
sends the values as one array, whatever their number. Elsewhere (SQLite) it is `__in` itself.
"""

from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db.models.lookups import In


class AnyOf(In):
    """A lookup expression (`QuerySet.filter(AnyOf(F("id"), ids))`), registered on no field."""

    lookup_name = "any"

    def as_postgresql(self, compiler: Any, connection: Any) -> tuple[str, tuple[Any, ...]]:
        # As `__in` does: NULL matches nothing, so it is left out (and `NOT` stays true).
        values = list(dict.fromkeys(value for value in self.rhs if value is not None))
        if not values:
            raise EmptyResultSet
        lhs, params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", (*params, values)
