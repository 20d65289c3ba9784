"""Catagolue's haul format: the census of a soup search as apgsearch writes it (no upload here).

A haul is plain text::

    @VERSION tensorca-0.1.0
    @MD5 <md5 of the root, hex>
    @ROOT k_abc123
    @RULE b3s23
    @SYMMETRY C1
    @NUM_SOUPS 3000
    @NUM_OBJECTS 71234

    @CENSUS TABLE
    xs4_33 27000
    ...

    @SAMPLE_SOUPIDS
    xs4_33 0 1 2 3 4 5 6 7 8 9
    ...

as apgsearch's ``submitResults`` builds it: census lines most common first (equal counts in
descending apgcode order, as its sort of ``(count, apgcode)`` read backwards gives), ``xs0_0`` and
zero counts left out, ``NUM_OBJECTS`` their sum; then for each apgcode up to ten soup ids (the
index appended to the root names the soup: ``C1/<root><id>`` on Catagolue). apgsearch's first
line, an authentication token for the upload, is not written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

from ..errors import TensorcaError

#: Largest haul text read (bytes).
MAX_HAUL_BYTES = 1 << 26
#: Soup ids kept per apgcode.
SAMPLES = 10
_HEADER = ("VERSION", "MD5", "ROOT", "RULE", "SYMMETRY", "NUM_SOUPS", "NUM_OBJECTS")
_CODE = re.compile(r"^[A-Za-z0-9_\-]{1,4096}$")


class HaulError(TensorcaError, ValueError):
    """A haul that does not follow the format, or whose numbers do not add up."""


def catagolue_rule(canonical: str) -> str:
    """Catagolue's spelling of a rule: ``B3/S23`` -> ``b3s23``, ``B2-a/S12`` -> ``b2-as12`` (lower case,
    no slash); a MAP rule keeps its case-sensitive base64 (``MAPARYX...`` -> ``mapARYX...``)."""
    if canonical.upper().startswith("MAP"):
        return "map" + canonical[3:]
    return canonical.replace("/", "").lower()


@dataclasses.dataclass
class Haul:
    """A haul's fields; ``census`` and ``samples`` keyed by apgcode (soup ids as strings)."""

    root: str
    rule: str
    symmetry: str
    num_soups: int
    census: dict[str, int]
    samples: dict[str, list[str]]
    version: str = ""

    @property
    def md5(self) -> str:
        return hashlib.md5(self.root.encode("utf-8")).hexdigest()

    @property
    def num_objects(self) -> int:
        """Objects in the census table (apgsearch leaves ``xs0_0`` out of the count too)."""
        return sum(n for _, n in self.ordered())

    def ordered(self) -> list[tuple[str, int]]:
        """Census lines as apgsearch orders them: count descending, then apgcode descending; no ``xs0_0``."""
        kept = [(code, n) for code, n in self.census.items() if n and code != "xs0_0"]
        return sorted(kept, key=lambda item: (item[1], item[0]), reverse=True)

    def text(self) -> str:
        """The haul as apgsearch writes it (without the upload's authentication line)."""
        lines = [f"@VERSION {self.version}", f"@MD5 {self.md5}", f"@ROOT {self.root}", f"@RULE {self.rule}",
                 f"@SYMMETRY {self.symmetry}", f"@NUM_SOUPS {self.num_soups}", f"@NUM_OBJECTS {self.num_objects}",
                 "", "@CENSUS TABLE"]
        ordered = self.ordered()
        lines += [f"{code} {n}" for code, n in ordered]
        lines += ["", "@SAMPLE_SOUPIDS"]
        lines += [" ".join([code, *self.samples[code][:SAMPLES]]) for code, _ in ordered if self.samples.get(code)]
        return "\n".join(lines) + "\n"


def parse_haul(text: str | bytes) -> Haul:
    """Read a haul (apgsearch's or :meth:`Haul.text`'s); :class:`HaulError` names the line at fault.

    A leading authentication line (apgsearch's uploads start with one) is skipped; unknown ``@`` header
    lines are ignored. ``@MD5`` must be the root's and ``@NUM_OBJECTS`` the census's sum.
    """
    if isinstance(text, bytes):
        if len(text) > MAX_HAUL_BYTES:
            raise HaulError(f"haul of {len(text)} bytes is over the limit of {MAX_HAUL_BYTES}")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HaulError(f"haul is not UTF-8 text ({exc})") from None
    if len(text) > MAX_HAUL_BYTES:
        raise HaulError(f"haul of {len(text)} characters is over the limit of {MAX_HAUL_BYTES}")
    header: dict[str, str] = {}
    census: dict[str, int] = {}
    samples: dict[str, list[str]] = {}
    section = "header"
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("@"):
            key, _, value = line[1:].partition(" ")
            if key == "CENSUS" and value.strip() == "TABLE":
                section = "census"
            elif key == "SAMPLE_SOUPIDS":
                section = "samples"
            elif section == "header":
                if key in header:
                    raise HaulError(f"line {number}: @{key} given twice")
                header[key] = value.strip()
            else:
                raise HaulError(f"line {number}: header line {line[:40]!r} after the census began")
            continue
        if section == "header":
            if number == 1:  # apgsearch's authentication token
                continue
            raise HaulError(f"line {number}: {line[:40]!r} is neither a header (@...) nor in a section")
        words = line.split()
        code = words[0]
        if not _CODE.match(code):
            raise HaulError(f"line {number}: {code[:40]!r} is not an apgcode")
        if section == "census":
            if len(words) != 2 or not words[1].isascii() or not words[1].isdigit() or len(words[1]) > 19:
                raise HaulError(f"line {number}: a census line is 'apgcode count', got {line[:60]!r}")
            if code in census:
                raise HaulError(f"line {number}: {code} counted twice")
            census[code] = int(words[1])
        else:
            if code in samples or code not in census:
                why = "listed twice" if code in samples else "not in the census"
                raise HaulError(f"line {number}: samples of {code}, which is {why}")
            if not 1 < len(words) <= SAMPLES + 1:
                raise HaulError(f"line {number}: {code} needs 1..{SAMPLES} soup ids, got {len(words) - 1}")
            samples[code] = words[1:]
    missing = [key for key in _HEADER if key not in header]
    if missing:
        raise HaulError(f"haul lacks @{missing[0]}")
    for key in ("NUM_SOUPS", "NUM_OBJECTS"):
        if not header[key].isascii() or not header[key].isdigit() or len(header[key]) > 19:
            raise HaulError(f"@{key} must be a whole number, got {header[key][:40]!r}")
    haul = Haul(root=header["ROOT"], rule=header["RULE"], symmetry=header["SYMMETRY"],
                num_soups=int(header["NUM_SOUPS"]), census=census, samples=samples, version=header["VERSION"])
    if header["MD5"].lower() != haul.md5:
        raise HaulError(f"@MD5 {header['MD5'][:40]} is not the md5 of @ROOT {haul.root[:40]} ({haul.md5})")
    if int(header["NUM_OBJECTS"]) != haul.num_objects:
        raise HaulError(f"@NUM_OBJECTS {header['NUM_OBJECTS']} differs from the census's {haul.num_objects} objects")
    return haul
