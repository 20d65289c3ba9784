"""Searches over many random starts: the batched soup census (:mod:`tensorca.search.soups`)."""

from .soups import SearchInterrupted, SoupSearchResult, pick_engine, soup_search

__all__ = ["SearchInterrupted", "SoupSearchResult", "pick_engine", "soup_search"]
