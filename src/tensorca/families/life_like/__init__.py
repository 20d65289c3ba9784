"""Life-like rules: outer-totalistic B/S on the Moore, von Neumann and hexagonal neighbourhoods (``B3/S23``,
``B2/S3V``, ``B2/S34H``; Golly's notation, :mod:`tensorca.families.life_like.notation`)."""

from ..native import named, table_class
from ..registry import Family
from .notation import matches, parse_lifelike

FAMILY = Family(
    name="life-like",
    title="outer-totalistic B/S rules on the Moore, von Neumann and hexagonal neighbourhoods",
    claims=named("life-like"),
    samples=("B3/S23", "B36/S23", "B3678/S34678", "B2/S", "B1357/S1357", "B0123478/S01234678",
             "B2/S3V", "B13/S012V", "B2/S34H", "B245/S3H"),
    notation=(matches, parse_lifelike),
    cost=table_class,
    engines=("numpy", "torch", "dense-conv", "bitpack-cpu", "bitpack-gpu", "hashlife", "dask"),
)
