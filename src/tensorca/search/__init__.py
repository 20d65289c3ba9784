"""Searches over many random starts: the batched soup census (:mod:`tensorca.search.soups`), apgsearch's
soups (:mod:`tensorca.search.hashsoup`) and the census over dask workers (:mod:`tensorca.search.distributed`)."""

from .distributed import CensusInterrupted, SoupCensus, soup_census
from .hashsoup import hashsoup, hashsoups
from .soups import SearchInterrupted, SoupSearchResult, pick_engine, soup_search

__all__ = ["CensusInterrupted", "SearchInterrupted", "SoupCensus", "SoupSearchResult", "hashsoup", "hashsoups",
           "pick_engine", "soup_census", "soup_search"]
