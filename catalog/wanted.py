"""The brand a request names, where the catalog shows the word is one (catalog/brands.py).

Not every title starts with a brand ("Cycle Bell for Bicycle"), so a keyword's word is a brand
only when it is the brand key of LEADS products or more, and of SHARE of the products that hold
it anywhere: "nivia" leads the titles that hold it; "cycle", the first word of some titles, is
held by many more that are no brand's. Search ranks the brand's products of the wanted kind
first (catalog/search.py). The counts are kept while the catalog's version holds.
"""

from collections.abc import Sequence

from django.conf import settings

from catalog import fulltext, text, versions
from catalog.brands import key_of
from kernel.cache import cached

LEADS = 3
SHARE = 0.5


def brand(keywords: Sequence[str]) -> str:
    """The key of the first brand the keywords name, "" for none."""
    for keyword in keywords:
        for word in text.words(keyword):
            key = key_of(word)
            if len(key) > 1 and not key.isdigit() and _is_brand(key, text.stem(word)):
                return key
    return ""


def _is_brand(key: str, stem: str) -> bool:
    led = int(
        cached(
            f"catalog:brand-leads:{versions.current()}:{key}",
            settings.CATALOG_CACHE_S,
            lambda: fulltext.led_by(key, fulltext.COMMON),
        )
    )
    return led >= LEADS and led >= SHARE * fulltext.documents_with(stem, fulltext.COMMON)
