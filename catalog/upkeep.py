"""The database's upkeep after an import: what PostgreSQL's autovacuum does in its own time, when
it runs at all (it may be off), done as the import ends so that the first searches after it plan
on what it wrote and read no pending index entries one by one. SQLite needs none: FTS5 merges
its segments as it writes, and its planner keeps no statistics."""

from django.db import connection

# The share of the catalog one import writes that stales the planner's statistics (autovacuum's
# default share; it counts every change since the last ANALYZE, this one import's alone, so a
# run of small imports leaves the statistics to autovacuum or to the next large import).
# ANALYZE reads a sample of every table, database time beside the shoppers' searches that an
# edit of a few products of a large catalog spares (docs/benchmarks.md, "Scale").
STALE_SHARE = 0.1


def after_import(written: int) -> None:
    """After an import of `written` products: the full-text index's pending entries merged into
    it; the statistics of the catalog's tables gathered where those are STALE_SHARE of it or
    more."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cap = int(written / STALE_SHARE)  # counted no further than the rule needs
        cursor.execute("SELECT count(*) FROM (SELECT FROM catalog_product LIMIT %s) c", [cap + 1])
        if cursor.fetchone()[0] <= cap:
            cursor.execute("ANALYZE catalog_product, catalog_video, catalog_searchword")
        cursor.execute("SELECT gin_clean_pending_list('catalog_product_search'::regclass)")
