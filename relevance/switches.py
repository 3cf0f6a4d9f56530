"""The names an environment variable of `make relevance` chooses among the known ones
(`RELEVANCE_WITHOUT=types,brands`, `RELEVANCE_IMPERFECT=long-keyword`)."""

import os
from collections.abc import Collection


def chosen(variable: str, known: Collection[str]) -> list[str]:
    """The comma-separated names `variable` holds, in their order; an unknown name is an error
    that lists the known ones."""
    names = [name for name in os.environ.get(variable, "").split(",") if name]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise SystemExit(f"{variable}: unknown {unknown}; known: {', '.join(known)}")
    return names
