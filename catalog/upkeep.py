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


def large_share(written: int) -> bool:
    """Whether `written` products are STALE_SHARE of the catalog or more: what stales the
    planner's statistics here and the gateway's own (catalog/versions.py, `statistic`)."""
    cap = int(written / STALE_SHARE)  # counted no further than the rule needs
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM (SELECT 1 FROM catalog_product LIMIT %s) c", [cap + 1])
        row = cursor.fetchone()
    return bool(row) and int(row[0]) <= cap


def after_import(written: int) -> None:
    """After an import of `written` products: the full-text index's pending entries merged into
    it; the statistics of the catalog's tables gathered where those are STALE_SHARE of it or
    more."""
    if connection.vendor != "postgresql":
        return
    analyze = large_share(written)
    with connection.cursor() as cursor:
        if analyze:
            cursor.execute("ANALYZE catalog_product, catalog_video, catalog_searchword")
        cursor.execute("SELECT gin_clean_pending_list('catalog_product_search'::regclass)")
