"""Benchmark of scoring 1,000 proposals, in-process (DESIGN.md section 11: <= 5 ms).

Ranking is the gateway's own judgement of merchants' proposals (matching/ranking.py, pure
functions over facts read beforehand): it runs in every match session, over every live proposal
of the intent, so its cost grows with the merchants that answer. Timed alone, in the bench's own
process, it shows that cost apart from the request (which match.py measures over HTTP).

On the 10k-product demo catalog, an intent with 1,000 live proposals (bench/proposals.py); the
facts are read once, then `ranking.rank` scores them RUNS (200) times; median. The reference is
the bench's reference view through Django's test client in the same process
(bench/reference.py).

Runs alone (`python bench/ranking.py`) or as part of `make bench`; see bench/common.py for the
scratch databases. Prints figures; asserts nothing.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, proposals, reference
from bench.common import RUNS, against, at_most, median, percentile, timed_ms


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.utils import timezone

    from matching import ranking, services
    from matching.models import Intent

    common.ensure_catalog()
    vendor = common.vendor_of(database_url)
    count = proposals.PROPOSALS
    print(f"\n== scoring {count:,} proposals on {common.VENDORS[vendor]}, in-process")
    intent = Intent.objects.get(intent_id=proposals.intent_with_proposals())
    rows = services.candidates_of(intent, timezone.now())
    facts = [services.proposal_facts(services.Candidate(*row), n) for n, row in enumerate(rows)]
    assert len(facts) == count

    def score() -> None:
        ranking.rank(services.intent_facts(intent), facts, limit=10)

    samples = [timed_ms(score) for _ in range(RUNS)]
    print(f"  (scoring p95 {percentile(samples, 0.95):.2f} ms)")
    ruler = reference.in_process()
    name = f"ranking {count:,} proposals, scoring, median (in-process)"
    figure = at_most(name, vendor, median(samples), 5)
    common.report([against(figure, ruler.at("median"), f"{ruler.what}, median")])


if __name__ == "__main__":
    common.per_database(run, "bench")
