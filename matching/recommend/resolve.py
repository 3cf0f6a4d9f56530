"""Resolve: the shopper's words through the intent engine (matching/engine), cached answers
first, then what the caller fixes beyond the words (a refinement) laid over the resolution, and
what its keywords rule out set apart."""

from catalog import search
from matching.engine import client as engine
from matching.engine.resolution import Resolution
from matching.recommend import exclusions
from matching.recommend.options import Options

# The engine's steps, as the pipeline calls them: a lookup (a cached resolution, or what to
# ask), the question awaited holding no thread, and the answer read.
require_configured = engine.require_configured
asked = engine.aask
settled = engine.settle


def looked_up(intent: str, region: str | None) -> engine.Lookup:
    """The engine's cached resolution of the words, or what to ask it."""
    return engine.lookup(intent, region, search.catalog_categories)


def understood(resolution: Resolution, options: Options) -> Resolution:
    """The resolution the later stages work from: the caller's refinement laid over it, and
    what its keywords rule out set apart (matching/recommend/exclusions.py)."""
    if options.refinement is not None:
        resolution = options.refinement.applied(resolution)
    return exclusions.set_apart(resolution)
