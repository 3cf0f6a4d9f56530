"""The embedded default's file cache (kernel/cache.py): a process checks a directory's size on
one write in MAX_ENTRIES / 100, however many cache objects Django makes for it (one per thread
and per async context), and still keeps the directory within about MAX_ENTRIES; the shared
state's store (throttle counters, locks) culls only what has expired."""

import hashlib
import inspect
import multiprocessing
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kernel.cache import FileCache, SharedStateCache


@pytest.fixture
def listings(monkeypatch) -> list[str]:
    """The directories listed by any FileCache, in order; the listing itself still happens."""
    listed: list[str] = []
    original = FileCache._list_cache_files  # type: ignore[attr-defined]

    def counted(self: FileCache) -> list[str]:
        listed.append(self._directory)
        return original(self)

    monkeypatch.setattr(FileCache, "_list_cache_files", counted)
    return listed


def _write_from_own_threads(directory: Path, writes: int, max_entries: int) -> None:
    """`writes` entries, each written by a new thread through a new cache object, as Django's
    per-thread and per-context cache handler makes them for each request's steps."""
    for n in range(writes):
        worker = threading.Thread(
            target=lambda n=n: FileCache(
                str(directory), {"OPTIONS": {"MAX_ENTRIES": max_entries}}
            ).set(f"resolution-{n}", {"n": n})
        )
        worker.start()
        worker.join()


def test_a_process_checks_the_size_once_per_hundredth_of_max_entries(tmp_path, listings):
    _write_from_own_threads(tmp_path, writes=100, max_entries=5_000)

    # 100 writes, one check every 50 of the process's writes to the directory: 2, not 100.
    assert listings == [str(tmp_path)] * 2
    assert len(list(tmp_path.glob("*.djcache"))) == 100


def test_directories_are_counted_apart(tmp_path, listings):
    first, second = tmp_path / "default", tmp_path / "engine"
    _write_from_own_threads(first, writes=3, max_entries=200)
    _write_from_own_threads(second, writes=3, max_entries=200)

    # One check every 2 writes in each directory: writes 1 and 3 of each.
    assert listings == [str(first)] * 2 + [str(second)] * 2


def test_the_directory_stays_near_max_entries(tmp_path):
    _write_from_own_threads(tmp_path, writes=700, max_entries=300)

    # Culled by Django's rule (a third of the entries) whenever a check finds it full: at most
    # MAX_ENTRIES plus the writes between two checks (3 here).
    assert 100 <= len(list(tmp_path.glob("*.djcache"))) <= 303


def test_a_directory_removed_under_the_cache_is_made_again(tmp_path):
    directory = tmp_path / "cache"
    cache = FileCache(str(directory), {})
    cache.set("kept", 1)
    for entry in directory.iterdir():
        entry.unlink()
    directory.rmdir()

    cache.set("kept", 2)

    assert cache.get("kept") == 2


def test_the_shared_state_store_culls_expired_entries_never_live_ones(tmp_path):
    store = SharedStateCache(str(tmp_path), {"OPTIONS": {"MAX_ENTRIES": 100}})
    for n in range(60):
        store.set(f"expired-{n}", n, timeout=0)  # written already past its time
    for n in range(300):  # a flood of live entries, three times MAX_ENTRIES
        store.set(f"throttle_a2a_client-{n}", [n], timeout=60)

    # Every live entry is still there; the expired ones went at the first cull.
    assert all(store.get(f"throttle_a2a_client-{n}") == [n] for n in range(300))
    assert len(list(tmp_path.glob("*.djcache"))) == 300


def _add_after(start: Any, directory: str, key: str) -> bool:
    start.wait(timeout=30)
    return SharedStateCache(directory, {}).add(key, "mine", timeout=60)


@pytest.mark.processes
def test_of_processes_adding_one_key_at_once_exactly_one_takes_it(tmp_path):
    # Eight processes, as Celery's and the web's workers are, each taking one URL's lock at once.
    with multiprocessing.Manager() as manager:
        start = manager.Barrier(8)
        with multiprocessing.get_context("spawn").Pool(8) as pool:
            won = pool.starmap(_add_after, [(start, str(tmp_path), "url-turn")] * 8)

    assert sorted(won) == [False] * 7 + [True]
    assert SharedStateCache(str(tmp_path), {}).get("url-turn") == "mine"


def test_add_takes_a_key_whose_entry_expired_and_never_a_live_one(tmp_path):
    store = SharedStateCache(str(tmp_path), {})
    store.set("expired", "old", timeout=0)
    store.set("live", "kept", timeout=60)

    assert store.add("expired", "new", timeout=60) is True
    assert store.add("live", "other", timeout=60) is False
    assert (store.get("expired"), store.get("live")) == ("new", "kept")
    assert list(tmp_path.glob("tmp*")) == []  # no written entry left behind


def test_the_gateways_default_store_is_the_shared_state_store(settings):
    from django.core.cache import caches

    if settings.REDIS_URL:
        pytest.skip("without REDIS_URL only: the embedded default's stores")
    assert isinstance(caches["default"], SharedStateCache)
    assert type(caches["tasks"]) is FileCache
    assert caches["tasks"]._directory != caches["default"]._directory


# What kernel/cache.py's file stores take from Django's FileBasedCache, hashed as written
# against Django 5.2: its size check (`_cull`, `_list_cache_files`), its expiry check
# (`_is_expired`, which deletes what it finds expired), `_createdir`, an entry's file and
# content (`_key_to_file`, `_write_content`, for the atomic `add`), and its bound
# (`_max_entries`, set by BaseCache).
FILE_CACHE_INTERNALS = {
    "__init__": "0896acd14af59485",
    "_createdir": "ec698e54c42c88e2",
    "_cull": "1996cf195882f2ba",
    "_list_cache_files": "04d18d823dde256c",
    "_is_expired": "a9b583cf4b77aeb8",
    "_key_to_file": "1a6568cd3f42913f",
    "_write_content": "95ef94d208e9005c",
}


def _source_hash(function: Callable[..., object]) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]


def test_djangos_file_cache_internals_are_those_the_file_stores_were_written_against():
    from django.core.cache.backends.filebased import FileBasedCache

    current = {name: _source_hash(getattr(FileBasedCache, name)) for name in FILE_CACHE_INTERNALS}

    assert current == FILE_CACHE_INTERNALS, (
        "Django's FileBasedCache changed under kernel/cache.py's FileCache and "
        "SharedStateCache: re-check that _cull still lists the directory on every write, that "
        "_is_expired still deletes an expired entry, that _key_to_file and _write_content "
        "still name and write an entry as set() does, and that _max_entries still holds, "
        "then update these hashes."
    )
    assert FileBasedCache("/nonexistent", {"OPTIONS": {"MAX_ENTRIES": 7}})._max_entries == 7
