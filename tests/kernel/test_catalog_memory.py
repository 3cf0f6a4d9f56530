"""Each process's memory of the catalog (kernel/cache.py, a cachetools TLRUCache): values kept
as they are, each entry for its own lifetime, at most CATALOG_CACHE_ENTRIES of them."""

from kernel import cache


def test_a_remembered_value_is_the_same_object_not_a_copy():
    product = {"id": 1, "videos": [{"id": 2}]}
    computed: list[str] = []

    def load(what: dict[str, object]) -> dict[str, object]:
        computed.append("loaded")
        return what

    first = cache.cached("catalog:product:v1:1", 60, lambda: load(product))
    again = cache.cached("catalog:product:v1:1", 60, lambda: load({}))

    assert first is product
    assert again is product
    assert computed == ["loaded"]


def test_an_entry_of_no_lifetime_is_not_kept():
    cache.cached("catalog:categories", 0, lambda: ["Shoes"])

    assert cache.recalled(["catalog:categories"]) == {}
    assert cache.cached("catalog:categories", 0, lambda: ["Boots"]) == ["Boots"]


def test_the_memory_keeps_at_most_catalog_cache_entries(settings):
    settings.CATALOG_CACHE_ENTRIES = 100
    cache.forget()  # sized again on first use
    keys = [f"catalog:product:v1:{n}" for n in range(250)]

    cache.remember({key: n for n, key in enumerate(keys)}, 60)

    kept = cache.recalled(keys)
    assert len(kept) == 100
    assert kept == {key: n for n, key in enumerate(keys) if n >= 150}  # the latest ones


def test_forgetting_some_keys_keeps_the_others():
    cache.remember({"catalog:product:v1:1": "one", "catalog:product:v1:2": "two"}, 60)

    cache.forget(["catalog:product:v1:1", "catalog:product:v1:9"])

    assert cache.recalled(["catalog:product:v1:1", "catalog:product:v1:2"]) == {
        "catalog:product:v1:2": "two"
    }
