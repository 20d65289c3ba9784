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

#: Common names of frequent B3/S23 objects, by apgcode (as Catagolue names them). Each code was
#: computed by :func:`classify` from the object's cells; ``tests/test_analysis.py`` checks them.
NAMES = {
    # still lifes
    "xs4_33": "block",
    "xs6_696": "beehive",
    "xs7_2596": "loaf",
    "xs5_253": "boat",
    "xs6_356": "ship",
    "xs8_6996": "pond",
    "xs4_252": "tub",
    "xs6_25a4": "barge",
    "xs7_25ac": "long boat",
    "xs8_69ic": "mango",
    "xs7_178c": "eater 1",
    "xs12_g8o653z11": "ship-tie",
    "xs14_g88m952z121": "half-bakery",
    "xs8_25ak8": "long barge",
    "xs8_35ac": "long ship",
    "xs14_69bqic": "paperclip",
    "xs8_3pm": "shillelagh",
    "xs10_g8o652z01": "boat-tie",
    "xs9_31ego": "integral sign",
    "xs6_bd": "snake",
    "xs6_39c": "aircraft carrier",
    "xs9_4aar": "hat",
    "xs8_312ko": "canoe",
    "xs24_y0696z25520g02552zy0343": "honey farm",
    "xs9_25ako": "long long boat",
    "xs10_35ako": "long long ship",
    "xs8_178k8": "tub with tail",
    "xs10_178kk8": "beehive with tail",
    "xs10_32qr": "block on table",
    "xs10_69ar": "loop",
    # oscillators
    "xp2_7": "blinker",
    "xp2_7e": "toad",
    "xp2_318c": "beacon",
    "xp2_2a54": "clock",
    "xp2_31ago": "bipole",
    "xp2_rhewehr": "spark coil",
    "xp4_37bkic": "mold",
    "xp5_idiidiz01w1": "octagon 2",
    "xp8_gk2gb3z11": "figure eight",
    "xp3_co9nas0san9oczgoldlo0oldlogz1047210127401": "pulsar",
    "xp15_4r4z4r4": "pentadecathlon",
    # spaceships
    "xq4_153": "glider",
    "xq4_6frc": "lightweight spaceship",
    "xq4_27dee6": "middleweight spaceship",
    "xq4_27deee6": "heavyweight spaceship",
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
