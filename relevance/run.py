"""`make relevance`: the labelled queries of relevance/queries.toml against a real catalog kept
outside the repository (RELEVANCE_CATALOG, else shared/relevance/catalog.jsonl beside the
checkout), through GET /v1/recommend with the
scripted engine answering each query's labelled resolution, on SQLite and, when BENCH_POSTGRES_URL
or DATABASE_URL names a PostgreSQL server, on PostgreSQL too (scratch databases, bench/common.py).

Prints P@3, P@10 and nDCG@10 overall, per kind of query and per tier, budget and region
violations, excluded products served, and how much the two databases' top-10s agree. Asserts
nothing; docs/relevance.md reads the figures.
"""

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common
from relevance.judging import Product, Served, evaluate, load_queries, overlap

CATALOG = Path(
    os.environ.get(
        "RELEVANCE_CATALOG",
        common.ROOT.parent / "shared" / "relevance" / "catalog.jsonl",
    )
)
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


def serve(database_url: str, output: Path) -> None:
    """In a process of its own: import the catalog, answer every query, write the answers."""
    from tests.support.engine import ScriptedEngine

    queries = load_queries()
    with ScriptedEngine() as engine:
        common.django_setup(database_url, **common.engine_env(engine.api_base))
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
        for query in queries:
            engine.answer(query.text, **query.resolution())
        client = Client(HTTP_HOST="localhost")
        answers = []
        for query in queries:
            response = client.get(
                "/v1/recommend", {"intent": query.text, "limit": str(LIMIT), "region": query.region}
            )
            assert response.status_code == 200, (query.text, response.content[:300])
            body = response.json()
            answers.append(
                {
                    "ids": [int(item["product"]["id"]) for item in body["items"]],
                    "tiers": [proposal["metadata"]["match_tier"] for proposal in body["proposals"]],
                }
            )
    output.write_text(json.dumps(answers))


def report(vendor: str, answers: list[Served], catalog: dict[int, Product]) -> None:
    queries = load_queries()
    scores = evaluate(queries, answers, catalog)
    print(f"\n== {common.VENDORS[vendor]}: {len(queries)} queries, {scores.queries} judged")
    print(f"  P@3 {scores.p3:.3f}   P@10 {scores.p10:.3f}   nDCG@10 {scores.ndcg10:.3f}")
    print(f"  budget or region violations: {scores.violations} of {scores.served} served")
    print(f"  excluded products served: {scores.excluded}")
    print(f"  {'kind':<11} {'queries':>7} {'P@3':>6} {'P@10':>6} {'nDCG@10':>8} {'excluded':>9}")
    for kind, part in sorted(scores.by_kind.items()):
        print(
            f"  {kind:<11} {part.queries:>7} {part.p3:>6.3f} {part.p10:>6.3f} "
            f"{part.ndcg10:>8.3f} {part.excluded:>9}"
        )
    for tier in TIERS:
        relevant, served = scores.by_tier.get(tier, [0, 0])
        if served:
            print(f"  {tier:<14} precision {relevant / served:.3f} ({relevant} of {served})")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], Path(sys.argv[3]))
        return
    if not CATALOG.is_file():
        sys.exit(f"No catalog at {CATALOG}: set RELEVANCE_CATALOG to the JSON Lines file.")
    catalog: dict[int, Product] = {}
    with CATALOG.open("rb") as stream:
        for line in stream:
            product = Product.from_line(json.loads(line))
            catalog[product.id] = product  # a product listed twice: the later line wins
    tops: dict[str, list[list[int]]] = {}
    for url in common.scratch_databases("relevance", fresh=True):
        vendor = common.vendor_of(url)
        output = common.VAR / f"relevance-{vendor}.json"
        print(f"\n== serving {len(load_queries())} queries on {common.VENDORS[vendor]}")
        subprocess.run([sys.executable, __file__, "--serve", url, str(output)], check=True)  # noqa: S603
        answers = [Served(**answer) for answer in json.loads(output.read_text())]
        report(vendor, answers, catalog)
        tops[vendor] = [answer.ids for answer in answers]
    if len(tops) == 2:
        pairs = list(zip(tops["sqlite"], tops["postgresql"], strict=True))
        mean = sum(overlap(first, second) for first, second in pairs) / len(pairs)
        print(f"\n== SQLite and PostgreSQL top-10s: mean overlap {mean:.3f}")


if __name__ == "__main__":
    main()
