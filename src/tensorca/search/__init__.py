"""Searches over many random starts: the batched soup census (:mod:`tensorca.search.soups`)."""

from .soups import soup_search

__all__ = ["soup_search"]
