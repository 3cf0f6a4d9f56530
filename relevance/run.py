"""`make relevance`: every labelled query set (relevance/sets.py) against a real catalog kept
outside the repository (RELEVANCE_CATALOG, else shared/relevance/catalog.jsonl beside the
checkout), through GET /v1/recommend with the scripted engine answering each query's labelled
resolution, on SQLite and, when BENCH_POSTGRES_URL or DATABASE_URL names a PostgreSQL server,
on PostgreSQL too (scratch databases, bench/common.py).

Prints, for each set and for each kind of query in it: P@3, P@10 and nDCG@10, budget and region
violations and excluded products served; per tier, the precision of what each tier served; and
how much the two databases' top-10s agree. Asserts nothing; docs/relevance.md reads the figures.
`RELEVANCE_SETS=own,own-frozen` measures some sets alone; `RELEVANCE_WITHOUT=types,hints`
turns signals off (relevance/ablation.py); `RELEVANCE_IMPERFECT=long-keyword` makes the
resolutions worse as models do (relevance/imperfect.py); `--json PATH` writes the figures.
"""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common
from relevance import ablation, imperfect
from relevance.judging import Product, Query, Scores, Served, evaluate, overlap
from relevance.sets import QuerySet, sets

CATALOG = Path(
    os.environ.get(
        "RELEVANCE_CATALOG",
        common.ROOT.parent / "shared" / "relevance" / "catalog.jsonl",
    )
)
SHARED_SETS = Path(os.environ.get("RELEVANCE_SHARED_SETS", CATALOG.parent / "sets"))
LIMIT = 10
TIERS = (
    "raw_substring",
    "strict",
    "narrow",
    "fuzzy",
    "partial",
    "semantic",
    "broadened",
    "trending",
)


def chosen_sets() -> list[QuerySet]:
    names = [name for name in os.environ.get("RELEVANCE_SETS", "").split(",") if name]
    found = sets(SHARED_SETS)
    return [one for one in found if not names or one.name in names]


def all_queries() -> list[Query]:
    made_worse = imperfect.chosen()
    return [imperfect.made(query, made_worse) for one in chosen_sets() for query in one.queries()]


def serve(database_url: str, output: Path) -> None:
    """In a process of its own: import the catalog, answer every query, write the answers."""
    from tests.support.engine import ScriptedEngine

    queries = all_queries()
    with ScriptedEngine() as engine:
        common.django_setup(database_url, **common.engine_env(engine.api_base))
        ablation.apply(ablation.chosen())
        from django.core.cache import caches
        from django.core.management import call_command
        from django.test import Client

        from kernel.cache import forget

        call_command("migrate", verbosity=0)
        call_command("flush", interactive=False, verbosity=0)
        for alias in ("default", "engine"):
            caches[alias].clear()
        forget()  # this process's memory of the catalog
        summary = StringIO()
        call_command("import_catalog", str(CATALOG), stdout=summary)
        print("  import: " + summary.getvalue().strip().replace("\n", "\n  import: "))
        client = Client(HTTP_HOST="localhost")
        answers = []
        for query in queries:
            # Two sets may hold the same words, resolved apart: each is answered its own.
            engine.answer(query.text, **query.resolution)
            caches["engine"].clear()
            asked: dict[str, Any] = {"intent": query.text, "limit": str(LIMIT)}
            if query.region:
                asked["region"] = query.region
            response = client.get("/v1/recommend", asked)
            assert response.status_code == 200, (query.text, response.content[:300])
            body = response.json()
            answers.append(
                {
                    "ids": [int(item["product"]["id"]) for item in body["items"]],
                    "tiers": [proposal["metadata"]["match_tier"] for proposal in body["proposals"]],
                }
            )
    output.write_text(json.dumps(answers))


def _line(name: str, part: Scores) -> str:
    return (
        f"  {name:<16} {part.p_queries:>7} {part.p3:>6.3f} {part.p10:>6.3f} "
        f"{part.ndcg10:>8.3f} {part.excluded:>9} {part.violations:>10}"
    )


def report(vendor: str, answers: list[Served], catalog: dict[int, Product]) -> dict[str, Any]:
    """Print the figures of each set and kind; answer them as data."""
    figures: dict[str, Any] = {}
    served = iter(answers)
    for one in chosen_sets():
        queries = one.queries()
        scores = evaluate(queries, [next(served) for _ in queries], catalog)
        print(f"\n== {common.VENDORS[vendor]}, set {one.name}: {len(queries)} queries")
        header = f"  {'':<16} {'queries':>7} {'P@3':>6} {'P@10':>6} {'nDCG@10':>8}"
        print(f"{header} {'excluded':>9} {'violations':>10}")
        print(_line("all", scores))
        for kind, part in sorted(scores.by_kind.items()):
            print(_line(kind, part))
        tiers = []
        for tier in TIERS:
            relevant, count = scores.by_tier.get(tier, [0, 0])
            if count:
                tiers.append(f"{tier} {relevant / count:.2f} ({relevant}/{count})")
        print("  tier precision: " + ", ".join(tiers))
        figures[one.name] = {
            "all": _figures(scores),
            "kinds": {kind: _figures(part) for kind, part in scores.by_kind.items()},
        }
    return figures


def _figures(part: Scores) -> dict[str, Any]:
    return {
        "queries": part.p_queries,
        "p3": round(part.p3, 3),
        "p10": round(part.p10, 3),
        "ndcg10": round(part.ndcg10, 3),
        "excluded": part.excluded,
        "violations": part.violations,
    }


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], Path(sys.argv[3]))
        return
    written = Path(sys.argv[sys.argv.index("--json") + 1]) if "--json" in sys.argv else None
    if without := ablation.chosen():
        print(f"== without {', '.join(without)} (relevance/ablation.py)")
    if worse := imperfect.chosen():
        print(f"== resolutions made imperfect: {', '.join(worse)} (relevance/imperfect.py)")
    if not CATALOG.is_file():
        sys.exit(f"No catalog at {CATALOG}: set RELEVANCE_CATALOG to the JSON Lines file.")
    catalog: dict[int, Product] = {}
    with CATALOG.open("rb") as stream:
        for line in stream:
            product = Product.from_line(json.loads(line))
            catalog[product.id] = product  # a product listed twice: the later line wins
    tops: dict[str, list[list[int]]] = {}
    figures: dict[str, Any] = {}
    for url in common.scratch_databases("relevance", fresh=True):
        vendor = common.vendor_of(url)
        output = common.VAR / f"relevance-{vendor}.json"
        print(f"\n== serving {len(all_queries())} queries on {common.VENDORS[vendor]}")
        subprocess.run([sys.executable, __file__, "--serve", url, str(output)], check=True)  # noqa: S603
        answers = [Served(**answer) for answer in json.loads(output.read_text())]
        figures[vendor] = report(vendor, answers, catalog)
        tops[vendor] = [answer.ids for answer in answers]
    if len(tops) == 2:
        pairs = list(zip(tops["sqlite"], tops["postgresql"], strict=True))
        mean = sum(overlap(first, second) for first, second in pairs) / len(pairs)
        print(f"\n== SQLite and PostgreSQL top-10s: mean overlap {mean:.3f}")
    if written is not None:
        written.write_text(json.dumps(figures, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
