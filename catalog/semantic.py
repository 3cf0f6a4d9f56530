"""The semantic signal of search: what a product's text and a shopper's query mean, as vectors.

A small embedding model that ships its weights inside its wheel (wordllama 0.4, 256 dimensions,
16 MB) turns text into a vector; two texts that mean the same thing ("trousers" and "pants",
"couch" and "sofa") point the same way. The model is loaded once per process, from the package's
own folder, never from the network: `load()` is told where its tokenizer lies (the package's
folder, where its wheel puts it) and that it may not download.

- A product's vector is made of its title, tags, brand and categories (product_text()), written
  with its search document, in the database beside it (Product.embedding, `VECTOR_BYTES` bytes:
  each of the unit vector's 256 components as a signed byte). No process holds the catalog's
  vectors: search reads the few it compares (catalog/search.py) with their products.
- The shopper's query (the model's keywords, else the shopper's words) is embedded at request
  time.
- similarities() are cosines of two vectors, -1 to 1: texts that mean the same score higher.

`SEMANTIC_SEARCH=false` turns the signal off: nothing is embedded, at import or at request time,
and search is what the lexical tiers find. Products written while it was off have no vector
until `manage.py embed_catalog` writes them.
"""

import threading
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Vector = Any  # a unit vector: NDArray[np.float32] of DIMENSIONS

DIMENSIONS = 256
VECTOR_BYTES = DIMENSIONS
# A signed byte a component: the unit vector times SCALE, rounded (cosines keep 2-3 digits).
SCALE = 127.0
# The longest text a product or query is embedded by (the model reads about 512 tokens).
MAX_CHARS = 1000

_loading = threading.Lock()
_keeping = threading.Lock()


def enabled() -> bool:
    return bool(getattr(settings, "SEMANTIC_SEARCH", True))


_model: Any = None


def model() -> Any:
    """The embedding model, loaded once per process from the wheel's own folder (by one
    thread: the others wait for it)."""
    global _model
    if _model is None:
        with _loading:
            if _model is None:
                import wordllama

                folder = Path(wordllama.__file__).resolve().parent
                _model = wordllama.WordLlama.load(
                    cache_dir=folder, disable_download=True, dim=DIMENSIONS
                )
    return _model


def product_text(fields: Mapping[str, Any]) -> str:
    """What a product's vector says, from its column values (an import row, a model's fields):
    its title, tags, brand and categories (its description names too much that it is not)."""
    tags = fields.get("tags") or []
    parts = [str(fields.get("title") or ""), " ".join(t for t in tags if isinstance(t, str))]
    parts += [fields.get(name) or "" for name in ("brand", "category_l1", "category_l2")]
    return " . ".join(part for part in parts if part)[:MAX_CHARS]


def vectors(texts: Sequence[str]) -> "NDArray[np.float32]":
    """The unit vectors of `texts`, one row each (NaN for a text with no word the model reads)."""
    import numpy as np

    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    # A text the model reads no word of has no direction: its row is NaN (embeddings() keeps
    # none for it), not a warning.
    with np.errstate(invalid="ignore", divide="ignore"):
        found = model().embed([text[:MAX_CHARS] for text in texts], norm=True)
    return np.asarray(found, dtype=np.float32).reshape(len(texts), DIMENSIONS)


def encode(rows: "NDArray[np.float32]") -> list[bytes]:
    """Each unit vector as the bytes a product keeps (a signed byte a component)."""
    import numpy as np

    whole = np.nan_to_num(rows, nan=0.0, posinf=0.0, neginf=0.0)
    quantized = np.clip(np.rint(whole * SCALE), -127, 127).astype(np.int8)
    return [row.tobytes() for row in quantized]


def embeddings(texts: Sequence[str]) -> list[bytes | None]:
    """The bytes each text's vector is kept as; None for a text the model reads no word of
    (it has no direction: the model answers NaN)."""
    rows = vectors(texts)
    kept = encode(rows)
    return [blob if _whole(row) else None for row, blob in zip(rows, kept, strict=True)]


def _whole(row: "NDArray[np.float32]") -> bool:
    import numpy as np

    return bool(np.all(np.isfinite(row))) and float(np.abs(row).sum()) > 0


@lru_cache(maxsize=1024)
def query_vector(text: str) -> "NDArray[np.float32] | None":
    """The unit vector of a query; None when it has no words."""
    if not text.strip():
        return None
    found = vectors([text])[0]
    return found if _whole(found) else None


def similarities(query: "NDArray[np.float32]", kept: Sequence[bytes | None]) -> list[float]:
    """The cosine of the query with each kept vector; 0 where a product has none."""
    import numpy as np

    whole = [index for index, blob in enumerate(kept) if blob and len(blob) == VECTOR_BYTES]
    found = [0.0] * len(kept)
    if not whole:
        return found
    matrix = np.frombuffer(b"".join(kept[index] or b"" for index in whole), dtype=np.int8)
    scores = matrix.reshape(len(whole), DIMENSIONS).astype(np.float32) @ query / SCALE
    for index, score in zip(whole, scores.tolist(), strict=True):
        found[index] = float(score)
    return found


def word_likeness(
    query_words: Sequence[str],
    titles: Sequence[Sequence[str]],
    apart: Mapping[str, tuple[str, str]] | None = None,
) -> list[float]:
    """How well each title's words answer the query's words: for each query word, the cosine
    of the title word nearest to it in meaning ("couch": "sofa", "cover": "cover" itself),
    averaged over the query's words. A synonym the titles use lifts a product this way, where
    the whole title's vector, diluted by its other words, would not. A query word that titles
    write as two (`apart`: "doormat", door and mat) is answered by the two as well: by the mean
    of the two words' nearest title words, where that is nearer than the word's own."""
    import numpy as np

    apart = apart or {}
    wanted = list(dict.fromkeys(query_words))
    vocabulary = list(dict.fromkeys(word for title in titles for word in title))
    if not wanted or not vocabulary:
        return [0.0] * len(titles)
    asked = list(
        dict.fromkeys([*wanted, *(part for word in wanted for part in apart.get(word, ()))])
    )
    row = {word: at for at, word in enumerate(asked)}
    index = {word: at for at, word in enumerate(vocabulary)}
    # Each query word against every word the titles use, once; a title's words are columns of
    # that, padded with a column nothing beats.
    alike = _word_matrix(asked) @ _word_matrix(vocabulary).T
    alike = np.concatenate([alike, np.full((len(asked), 1), -np.inf, np.float32)], axis=1)
    width = max(len(title) for title in titles)
    columns = np.full((len(titles), width), len(vocabulary), dtype=np.int64)
    for at, title in enumerate(titles):
        columns[at, : len(title)] = [index[word] for word in title]
    best = alike[:, columns].max(axis=2)  # asked words x titles
    answered = [
        np.maximum(best[row[word]], best[[row[part] for part in apart[word]]].mean(axis=0))
        if word in apart
        else best[row[word]]
        for word in wanted
    ]
    found = np.mean(answered, axis=0)
    return [float(value) if title else 0.0 for value, title in zip(found, titles, strict=True)]


# Word vectors, once per process: a catalog's titles use tens of thousands of words (a process
# keeps at most WORDS_KEPT of them, 1 kB each, however large the catalog).
WORDS_KEPT = 20_000
_words: dict[str, "NDArray[np.float32]"] = {}


def _word_matrix(words: Sequence[str]) -> "NDArray[np.float32]":
    import numpy as np

    known = {word: row for word in words if (row := _words.get(word)) is not None}
    unknown = [word for word in dict.fromkeys(words) if word not in known]
    if unknown:
        fresh = vectors(unknown)
        with _keeping:  # threads (the Celery workers' pool) share the words kept
            if len(_words) + len(unknown) > WORDS_KEPT:
                _words.clear()
            for word, row in zip(unknown, fresh, strict=True):
                known[word] = row
                if len(_words) < WORDS_KEPT:
                    _words[word] = row
    return np.stack([known[word] for word in words])


def nearest_names(
    query: "NDArray[np.float32]", names: Sequence[str], *, least: float, most: int
) -> list[str]:
    """Up to `most` of `names` (category names) nearest in meaning to the query, each at
    least `least` alike, nearest first."""
    if not names:
        return []
    kept = _name_vectors(tuple(names))
    scored = sorted(zip(similarities(query, kept), names, strict=True), key=lambda pair: -pair[0])
    return [name for score, name in scored[:most] if score >= least]


@lru_cache(maxsize=4)
def _name_vectors(names: tuple[str, ...]) -> list[bytes | None]:
    """The vectors of a list of category names, once per process and list (a catalog has a few
    hundred names; the last four lists are kept)."""
    return embeddings(names)


def warm() -> None:
    """Load the model now (a web worker at start), so no shopper's request waits for it."""
    if enabled():
        query_vector("warm")


def embed_missing(
    product_model: Any, *, batch: int = 1000, progress: Callable[[int], object] | None = None
) -> int:
    """Write the embedding of every product that has none (written while the signal was off,
    or before it existed), `batch` products a statement; how many were written. Nothing while
    the signal is off. `progress` is told each batch's size."""
    if not enabled():
        return 0
    written, after = 0, None
    fields = ("pk", "title", "tags", "brand", "category_l1", "category_l2")
    while True:
        missing = product_model.objects.filter(embedding__isnull=True).order_by("pk")
        if after is not None:
            missing = missing.filter(pk__gt=after)  # by key: never the rows already passed
        rows = list(missing.values(*fields)[:batch])
        if not rows:
            return written
        after = rows[-1]["pk"]
        kept = embeddings([product_text(row) for row in rows])
        products = [
            product_model(pk=row["pk"], embedding=blob)
            for row, blob in zip(rows, kept, strict=True)
            if blob is not None
        ]
        product_model.objects.bulk_update(products, ["embedding"])
        written += len(products)
        if progress:
            progress(len(rows))
