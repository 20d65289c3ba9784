"""Understanding what happened: classification (period, motion), apgcodes, object census.

- :func:`classify`: still life, oscillator (period), spaceship (period, displacement), gun
  (period, what it emits), dies (generation) or unresolved.
- :func:`apgcode` / :func:`decode`: the community's canonical object names (``xq4_153`` glider).
- :func:`objects` / :func:`census`: split a stabilised pattern into objects and count them.
"""

from .apgcode import apgcode, canonical_representation, decode, wechsler
from .census import census, objects
from .classify import KINDS, Classification, classify
from .objects import UNRESOLVED, Found

#: Common names of frequent B3/S23 objects, by apgcode.
NAMES = {
    "xs4_33": "block",
    "xp2_7": "blinker",
    "xs6_696": "beehive",
    "xq4_153": "glider",
    "xs5_253": "boat",
    "xs7_2596": "loaf",
    "xs6_356": "ship",
    "xs8_6996": "pond",
    "xs4_252": "tub",
    "xs6_25a4": "barge",
    "xs7_25ac": "long boat",
    "xp2_7e": "toad",
    "xp2_318c": "beacon",
    "xs6_bd": "snake",
    "xs6_39c": "aircraft carrier",
    "xq4_6frc": "lightweight spaceship",
    "xq4_27dee6": "middleweight spaceship",
    "xq4_27deee6": "heavyweight spaceship",
    "xp3_co9nas0san9oczgoldlo0oldlogz1047210127401": "pulsar",
    "xp15_4r4z4r4": "pentadecathlon",
}

__all__ = [
    "KINDS",
    "NAMES",
    "UNRESOLVED",
    "Classification",
    "Found",
    "apgcode",
    "canonical_representation",
    "census",
    "classify",
    "decode",
    "objects",
    "wechsler",
]
