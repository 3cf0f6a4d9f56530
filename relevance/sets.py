"""The labelled query sets of `make relevance` (docs/relevance.md), each read into the one form
relevance/judging.py judges:

- `own`: relevance/queries.toml, the gateway's first set (general queries and the hard kinds);
- `own-tuning` and `own-frozen`: relevance/sets/, written apart from the code, from the catalog
  alone; the frozen part is reported apart and never tuned on;
- `everyday`, `harder`, `hard-kinds`: the sets released for diagnosis, read where the catalog
  is kept (RELEVANCE_SETS, else shared/relevance/sets beside the checkout). They are for finding
  what goes wrong by kind, never for code, list entries or weights of one of their queries.

The JSON sets share one form (`queries`: `id`, `kind`, `intent`, `resolution`, `rule`, and for
exclusions `exclude`); the TOML set is read into it.
"""

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relevance.judging import Query, Rule, patterns

HERE = Path(__file__).resolve().parent
OWN = HERE / "queries.toml"
OWN_SETS = HERE / "sets"


@dataclass(frozen=True)
class QuerySet:
    name: str
    path: Path
    released: bool  # one of the sets released for diagnosis, not the gateway's own

    def queries(self) -> list[Query]:
        if self.path.suffix == ".toml":
            return toml_queries(self.path, self.name)
        return json_queries(self.path, self.name)


def sets(shared: Path) -> list[QuerySet]:
    """Every set there is: the gateway's own, then the released ones found under `shared`."""
    found = [QuerySet("own", OWN, released=False)]
    found += [
        QuerySet(name, OWN_SETS / f"{name}.json", released=False)
        for name in ("own-tuning", "own-frozen")
        if (OWN_SETS / f"{name}.json").is_file()
    ]
    found += [
        QuerySet(name, shared / f"{name}.json", released=True)
        for name in ("everyday", "harder", "hard-kinds")
        if (shared / f"{name}.json").is_file()
    ]
    return found


def json_queries(path: Path, name: str) -> list[Query]:
    entries = json.loads(path.read_text())["queries"]
    return [
        Query(
            set=name,
            id=entry["id"],
            kind=entry["kind"],
            text=entry["intent"],
            resolution=dict(entry["resolution"]),
            rule=Rule.of(entry["rule"]),
            excluded=patterns(entry.get("exclude", ())),
        )
        for entry in entries
    ]


def toml_queries(path: Path, name: str) -> list[Query]:
    with path.open("rb") as stream:
        entries = tomllib.load(stream)["query"]
    return [_from_toml(name, number, entry) for number, entry in enumerate(entries, 1)]


def _from_toml(name: str, number: int, entry: dict[str, Any]) -> Query:
    """A query of queries.toml: `title` and `not_title` are the rule's one clause, `category`
    its category_any, the budget (US dollars) both the rule's price and the resolution's;
    `price_max` a price the rule alone holds products to (a "cheap" the model states as no
    figure); `normalized` the model's normalized query where it is not the text's (a
    translation)."""
    low, high = entry.get("budget_min"), entry.get("budget_max")
    resolution: dict[str, Any] = {
        "normalized_query": entry.get("normalized", " ".join(entry["text"].lower().split())),
        "keywords": list(entry["keywords"]),
        "categories": list(entry.get("categories", [])),
        "intent_tags": list(entry["keywords"]),
        "target_audience": None,
        "budget": {"min": low, "max": high, "currency": "USD"},
        "region": entry.get("region", "IN"),
        "constraints": list(entry.get("constraints", [])),
        "summary": entry["text"],
    }
    if "exclude" in entry:
        resolution["exclude"] = list(entry["exclude"])
    rule = {
        "title_all": entry["title"],
        "title_none": entry.get("not_title", []),
        "price_min": low,
        "price_max": entry.get("price_max", high),
    }
    if "category" in entry:
        rule["category_any"] = entry["category"]
    return Query(
        set=name,
        id=f"{name}-{number}",
        kind=entry.get("kind", "general"),
        text=entry["text"],
        resolution=resolution,
        rule=Rule.of(rule),
        excluded=patterns(entry.get("excluded", [])),
        region=entry.get("region", "IN"),
    )
