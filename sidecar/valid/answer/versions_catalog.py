"""The version catalog: the products of a doc set, each with its documented versions in order.

Pure functions over the export header's profiles (the subject scheme's values and labels):

- **products**: profiles whose labels share the same product words (valid.answer.scope's naming
  pattern: "Corvane CLI 2.4.1" and "Corvane Agent 2.0.0" are two products; TPU v5p, v6e and TPU7x
  one). A product's name is what its values' display names share ("Corvane CLI").
- **order**: by each value's version string when every value of the product has one that parses
  (dotted or semantic, with pre-releases: 2.9 < 2.10 < 3.0.0-rc.1 < 3.0.0; or a generation number
  with a letter suffix: v5p < v6e < 7x), else the scheme's order. An explicit order (valid.toml
  `[versions] order`) wins over both.
- **nearest**: for a version the scheme does not have, the documented ones just below and above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from valid.contracts import ProfileInfo

from valid.answer.scope import naming_pattern

# A version string: numbers joined by dots, then an optional pre-release ("-rc.1", "b2", "-beta").
_VERSION = re.compile(r"^v?(\d+(?:\.\d+)*)(?:[-.~]?(alpha|a|beta|b|preview|pre|rc|c|dev)\.?(\d*))?$", re.I)
# A generation name: letters, a number, a letter suffix (v5p, tpu7x, 7x).
_GENERATION = re.compile(r"^([a-z]*?)(\d+)([a-z]{0,2})$", re.I)
# Pre-releases sort before their release, in this order.
_PRE_RANK = {"dev": 0, "alpha": 1, "a": 1, "beta": 2, "b": 2, "preview": 3, "pre": 3, "rc": 4, "c": 4}
_FINAL = 9
_WIDTH = 6  # numbers compared per version: 2.10 and 2.10.0 are the same version


def version_key(text: str) -> tuple | None:
    """A sort key for one version string, or None when it is not one."""
    text = text.strip().strip("()")
    match = _VERSION.match(text)
    if match:
        numbers = [int(n) for n in match.group(1).split(".")][:_WIDTH]
        numbers += [0] * (_WIDTH - len(numbers))
        pre = match.group(2)
        rank = _PRE_RANK[pre.lower()] if pre else _FINAL
        return (*numbers, rank, int(match.group(3) or 0), "")
    match = _GENERATION.match(text)
    if match:
        return (int(match.group(2)), *[0] * (_WIDTH - 1), _FINAL, 0, match.group(3).lower())
    return None


def _version_of(label: str) -> tuple[str, str] | None:
    """(product words, version string) of a label whose last word is a version: "Corvane CLI 2.4.1"
    → ("Corvane CLI", "2.4.1"); "TPU7x (Ironwood)" → ("TPU", "7x")."""
    words = re.sub(r"\([^)]*\)", " ", label).split()
    if not words:
        return None
    last = words[-1]
    if version_key(last) is not None and (len(words) > 1 or any(c.isdigit() for c in last)):
        return " ".join(words[:-1]), last
    glued = re.match(r"^([A-Za-z]+?)(\d.*)$", last)  # "TPU7x": product and generation in one word
    if glued and version_key(glued.group(2)) is not None:
        return " ".join([*words[:-1], glued.group(1)]), glued.group(2)
    return None


@dataclass(frozen=True)
class Version:
    profile: str
    label: str
    version: str  # the version string as its label writes it ("" when none parses)


@dataclass(frozen=True)
class Product:
    name: str  # "" when the doc set has one product and its labels share no words
    versions: tuple[Version, ...]  # oldest first
    by_version_strings: bool  # ordered by parsed version strings (else scheme or explicit order)

    @property
    def profiles(self) -> list[str]:
        return [v.profile for v in self.versions]

    @property
    def latest(self) -> Version:
        return self.versions[-1]

    @property
    def oldest(self) -> Version:
        return self.versions[0]

    def index(self, profile: str) -> int:
        return self.profiles.index(profile)

    def nearest(self, version: str) -> list[Version]:
        """The documented versions just below and just above `version` (one of them at the ends)."""
        key = version_key(version)
        if key is None or not self.by_version_strings:
            return []
        below = [v for v in self.versions if version_key(v.version) < key]
        above = [v for v in self.versions if version_key(v.version) > key]
        return [*below[-1:], *above[:1]]


@dataclass(frozen=True)
class Catalog:
    products: tuple[Product, ...]

    def product_of(self, profile: str) -> Product | None:
        return next((p for p in self.products if profile in p.profiles), None)

    def products_of(self, profiles: Sequence[str]) -> list[Product]:
        found = [self.product_of(p) for p in profiles]
        return [p for p in self.products if p in found]


def build_catalog(profiles: Sequence[ProfileInfo], order: Sequence[str] = ()) -> Catalog:
    """The products and their versions in order; `order` (profile names) overrides the order of the
    profiles it names."""
    naming = naming_pattern(profiles)
    groups: dict[frozenset, list[ProfileInfo]] = {}
    for profile in profiles:
        groups.setdefault(naming.products.get(profile.name, frozenset()), []).append(profile)
    products = [_product(members, order) for members in groups.values()]
    return Catalog(tuple(products))


def _product(members: list[ProfileInfo], order: Sequence[str]) -> Product:
    versions = []
    names = []
    for profile in members:
        label = profile.labels[0] if profile.labels else profile.name
        parsed = next((p for p in map(_version_of, [label, *profile.labels[1:], profile.name]) if p), None)
        versions.append(Version(profile.name, label, parsed[1] if parsed else ""))
        names.append(parsed[0] if parsed else "")
    parsed_all = all(version_key(v.version) is not None for v in versions)
    if order:
        rank = {name: i for i, name in enumerate(order)}
        ordered = sorted(versions, key=lambda v: rank.get(v.profile, len(rank)))
    elif parsed_all:
        ordered = sorted(versions, key=lambda v: version_key(v.version))
    else:
        ordered = versions  # the scheme's order
    return Product(_common_words(names), tuple(ordered), parsed_all and not order)


def _common_words(names: list[str]) -> str:
    """The words every name starts with ("Corvane CLI")."""
    split = [n.split() for n in names if n]
    if not split or len(split) < len(names):
        return ""
    common = []
    for words in zip(*split):
        if len({w.lower() for w in words}) != 1:
            break
        common.append(words[0])
    return " ".join(common)
