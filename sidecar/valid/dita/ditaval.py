"""DITAVAL files and DITA-OT 4.2.4's exclusion algorithm, reproduced exactly.

`scope[P]` must equal "a DITA-OT build with P's DITAVAL keeps this", so this module follows what
DITA-OT 4.2.4 does (FilterUtils.needExclude/extCheckExclude, DitaValReader, FilterUtils.refine),
including where it departs from the DITA 1.3 specification on groups:

- an element is judged on its own attributes only; excluding it removes its subtree (preprocess);
- an attribute excludes when all its tokens evaluate to exclude; any excluding attribute excludes;
- groups `name(v1 v2)` (name matches ASCII \\w+): same-name groups merge, empty groups are dropped,
  the group name used as a value is not a rule, and group-name rules are checked before (not
  combined with) the attribute's rules;
- props specializations filter only when the root's @domains declares them (`a(props tpugen)`);
  the generalized form `props="tpugen(v5p)"` is always read as a group;
- duplicate rules: the first one wins (also across several DITAVAL files);
- print defaults of a non-print transtype: `print="printonly"` is excluded, DITAVAL rules override;
- flag and passthrough rules never exclude;
- subject-scheme refinement: a rule on a value is copied to descendant values without a rule.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from valid.errors import DitaError, DitavalError

INCLUDE, EXCLUDE, PASSTHROUGH, FLAG = "include", "exclude", "passthrough", "flag"
ACTIONS = (INCLUDE, EXCLUDE, PASSTHROUGH, FLAG)

# The attributes DITA-OT 4.2.4 filters on by default (FilterUtils.getProfileAttributes).
FILTER_ATTRIBUTES = ("audience", "platform", "product", "otherprops", "props", "print", "deliveryTarget")

_GROUP = re.compile(r"(\w+)\((.*?)\)", re.ASCII)
_DOMAIN = re.compile(r"a\(\s*props\s+([^)]*)\)")

Key = tuple[str | None, str | None]  # (attribute or group name, value); (None, None) = global default


@dataclass(frozen=True)
class Rule:
    att: str | None
    val: str | None
    action: str
    line: int


@dataclass
class Ditaval:
    """The rules of one or more DITAVAL files, first rule per key kept."""

    source: str
    rules: list[Rule] = field(default_factory=list)
    warnings: list[tuple[int, str, str]] = field(default_factory=list)  # (line, feature, message)

    def actions(self) -> dict[Key, str]:
        table: dict[Key, str] = {}
        for rule in self.rules:
            table.setdefault((rule.att, rule.val), rule.action)
        return table


def read_ditaval(path: str | Path, display: str | None = None) -> Ditaval:
    """Read a DITAVAL file; DitavalError (with file and line) if it cannot be used."""
    path = Path(path)
    name = display or path.name
    try:
        data = path.read_bytes()
    except OSError as err:
        raise DitavalError(f"{name}: cannot read DITAVAL: {err.strerror}") from None
    return parse_ditaval(data, name)


def parse_ditaval(data: bytes, name: str) -> Ditaval:
    from valid.dita.loader import parse_bytes  # the same secure parser as for DITA content

    try:
        root = parse_bytes(data, name).tree.getroot()
    except DitaError as err:
        raise DitavalError(str(err)) from None
    if root.tag != "val":
        raise DitavalError(f"{name}:{root.sourceline}: not a DITAVAL file (root element <{root.tag}>, expected <val>)")
    result = Ditaval(source=name)
    for el in root.iter("prop", "revprop"):
        action = el.get("action")
        if action not in ACTIONS:
            raise DitavalError(
                f"{name}:{el.sourceline}: <{el.tag}> has action={action!r}; expected one of {', '.join(ACTIONS)}"
            )
        if el.tag == "revprop":
            continue  # revision flagging: never filters
        att = el.get("att") or None
        val = el.get("val") or None  # val="" counts as absent, as in DITA-OT
        if att is None and val is not None:
            raise DitavalError(f"{name}:{el.sourceline}: <prop val='{val}'> has no @att")
        if att == "rev":
            result.warnings.append((el.sourceline, "ditaval-rev", "rules on @rev are ignored (rev only flags)"))
            continue
        if action == FLAG:
            result.warnings.append(
                (el.sourceline, "ditaval-flag", "flag rules do not exclude; flagging markup is not produced")
            )
        result.rules.append(Rule(att, val, action, el.sourceline or 0))
    return result


def merge(ditavals: Iterable[Ditaval]) -> Ditaval:
    """Several DITAVALs in order, as DITA-OT concatenates them: the first rule per key wins."""
    ditavals = list(ditavals)
    merged = Ditaval(source="+".join(d.source for d in ditavals))
    for d in ditavals:
        merged.rules.extend(d.rules)
        merged.warnings.extend(d.warnings)
    return merged


# ----------------------------------------------------------------------------- groups and domains


def groups(value: str) -> list[tuple[str | None, list[str]]]:
    """Split an attribute value into (group name or None, tokens), DITA-OT style.

    Same-name groups are concatenated, empty groups dropped; tokens outside any group form the
    group None. Group names match ASCII \\w+, so `tpu-gen(v5p)` is group `gen` plus a token `tpu-`.
    """
    named: dict[str, list[str]] = {}
    rest: list[str] = []
    pos = 0
    for match in _GROUP.finditer(value):
        rest.extend(value[pos : match.start()].split())
        pos = match.end()
        tokens = match.group(2).split()
        if tokens:
            named.setdefault(match.group(1), []).extend(tokens)
    rest.extend(value[pos:].split())
    result: list[tuple[str | None, list[str]]] = []
    if rest:
        result.append((None, rest))
    result.extend(named.items())
    return result


def props_chains(domains: str | None) -> list[tuple[str, ...]]:
    """Props specialization chains declared in a root's @domains, e.g. a(props tpugen) -> (props, tpugen)."""
    chains: list[tuple[str, ...]] = []
    for match in _DOMAIN.finditer(domains or ""):
        chain = ("props", *match.group(1).split())
        if len(chain) > 1 and chain not in chains:
            chains.append(chain)
    return chains


# ----------------------------------------------------------------------------- the filter


def print_defaults(print_transtype: bool = False) -> dict[Key, str]:
    """DITA-OT's built-in @print rules (always active; DITAVAL rules override them)."""
    return {
        ("print", None): INCLUDE,
        ("print", "yes"): INCLUDE,
        ("print", "printonly"): INCLUDE if print_transtype else EXCLUDE,
        ("print", "no"): EXCLUDE if print_transtype else INCLUDE,
    }


class Filter:
    """The exclusion test of one build: DITAVAL rules + print defaults (+ subject-scheme refinement)."""

    def __init__(
        self,
        ditaval: Ditaval | None = None,
        *,
        print_transtype: bool = False,
        hierarchy: Mapping[str, Mapping[str, list[str]]] | None = None,
    ):
        table = dict(print_defaults(print_transtype))
        rules = ditaval.actions() if ditaval is not None else {}
        table.update(rules)  # DITAVAL rules override the print defaults
        if hierarchy:
            table = refine(table, list(rules), hierarchy)
        self.table = table
        self.default_exclude = table.get((None, None)) == EXCLUDE

    def excludes(self, attrs: Mapping[str, str], chains: Iterable[tuple[str, ...]] = ()) -> bool:
        """True if an element with these (own) attributes is excluded, with its subtree."""
        for att in FILTER_ATTRIBUTES:
            value = attrs.get(att)
            if value is None:
                continue
            for group, tokens in groups(value):
                chain = (att,) if group is None else (att, group)
                if self._check(chain, tokens):
                    return True
        for chain in chains:
            value = self._specialized_value(attrs, chain)
            if value and self._check(chain, value.split()):
                return True
        return False

    @staticmethod
    def _specialized_value(attrs: Mapping[str, str], chain: tuple[str, ...]) -> str | None:
        name = chain[-1]
        value = attrs.get(name)
        if value is not None:
            return value
        # The generalized form: props="tpugen(v5p)" (or a less specific specialization's attribute).
        for less in reversed(chain[:-1]):
            general = attrs.get(less)
            if general:
                for group, tokens in groups(general):
                    if group == name:
                        return " ".join(tokens)
        return None

    def _check(self, chain: tuple[str, ...], tokens: list[str]) -> bool:
        """DITA-OT's extCheckExclude: the most specific name first, falling back along the chain."""
        table = self.table
        for index in range(len(chain) - 1, -1, -1):
            name = chain[index]
            has_exclude = has_non_exclude = False
            for token in tokens:
                action = table.get((name, token))
                if action is None:
                    default = table.get((name, None))
                    if default is not None:
                        if default == EXCLUDE:
                            has_exclude = True
                        else:
                            return False
                    elif has_exclude:
                        if not self.default_exclude:
                            return False
                    else:
                        has_non_exclude = True
                elif action == EXCLUDE:
                    has_exclude = True
                    if has_non_exclude:
                        if self.default_exclude:
                            has_non_exclude = False
                        else:
                            return False
                else:
                    return False
            if has_non_exclude:
                if index == 0:
                    return self.default_exclude
            elif has_exclude:
                return True
        return False


def refine(
    table: dict[Key, str], rule_keys: list[Key], hierarchy: Mapping[str, Mapping[str, list[str]]]
) -> dict[Key, str]:
    """Copy each value rule to the descendant values (subject scheme) that have no rule yet.

    `hierarchy[attribute][value]` lists the value's children. Rules are visited in DITAVAL order
    and descendants breadth-first; a descendant with a rule of its own keeps it and passes its own
    on, so the nearest ruled ancestor decides. DITA-OT gives the same result except where parent and
    child rules conflict, where the iteration order of its HashMap makes the outcome arbitrary
    (DITA-OT's FilterUtils).
    """
    refined = dict(table)
    for att, val in rule_keys:
        if att is None or val is None or att not in hierarchy:
            continue
        children = hierarchy[att]
        action = table[(att, val)]
        queue = list(children.get(val, []))
        seen = set()
        while queue:
            child = queue.pop(0)
            if child in seen:
                continue
            seen.add(child)
            if (att, child) in table:
                continue  # its own rule propagates from it
            refined.setdefault((att, child), action)
            queue.extend(children.get(child, []))
    return refined
