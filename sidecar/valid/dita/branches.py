"""DITA 1.3 branch filtering (`ditavalref`) on the filtered, inlined root map, as DITA-OT 4.2.4's
BranchFilterModule does it.

1. Split: an element with several `ditavalref` children becomes one copy of itself per
   `ditavalref` (the copies follow it), each with one. A branch's `ditavalmeta` accumulates down
   nested branches: resource prefixes append (outer first), suffixes prepend (inner first).
   Every topicref in a branch with a resource prefix or suffix is renamed: the prefix goes before
   the file name, the suffix before its extension (`t.dita` -> `v1-t-s.dita`). A key scope
   prefix or suffix renames the branch element's own @keyscope names (or, without @keyscope,
   makes prefix+suffix its key scope name); it is not applied further down.
2. Filter: an element is removed (with its subtree) when any DITAVAL of a `ditavalref` on it or
   on an ancestor excludes it. The `--profile` DITAVAL was already applied to the whole map.
3. Duplicates: a topic referenced under several different sets of branch DITAVALs gets one name
   per set: the set with no branch DITAVAL keeps the name (else the first set in document
   order), the others get `-1`, `-2`, ... before the extension, in document order (DITA-OT
   iterates a hash map here; document order makes the result deterministic).
4. Each renamed topicref then names a copy of its topic filtered by its branch DITAVALs; a topic
   in a branch that keeps its name is filtered in place.

Subject-scheme hierarchies do not refine branch DITAVALs (DITA-OT does not either, dita-ot#3856).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from lxml import etree

from valid.dita import classes
from valid.dita.ditaval import Filter
from valid.dita.loader import is_external, reference_format, split_href
from valid.dita.stages.nodes import remove

DITAVALREF = " ditavalref-d/ditavalref "
COPY_TO = "{urn:valid:dita}branch-copy-to"  # working attribute: the generated name of a branch copy
_META = {
    " ditavalref-d/dvrResourcePrefix ": "resource_prefix",
    " ditavalref-d/dvrResourceSuffix ": "resource_suffix",
    " ditavalref-d/dvrKeyscopePrefix ": "keyscope_prefix",
    " ditavalref-d/dvrKeyscopeSuffix ": "keyscope_suffix",
}


@dataclass(frozen=True)
class Branch:
    resource_prefix: str | None = None
    resource_suffix: str | None = None
    keyscope_prefix: str | None = None
    keyscope_suffix: str | None = None

    def merge(self, ditavalref: etree._Element) -> Branch:
        found = _meta(ditavalref)
        result = self
        for field, value in found.items():
            old = getattr(self, field) or ""
            # prefixes accumulate outer-first, suffixes inner-first (BranchFilterModule.Branch)
            result = replace(result, **{field: old + value if field.endswith("prefix") else value + old})
        return result


def has_branches(root: etree._Element) -> bool:
    return any(_is_ditavalref(el) for el in root.iter() if isinstance(el.tag, str))


def apply(root: etree._Element, chains, filter_of: Callable[[etree._Element], Filter]) -> None:
    """Split, rename and filter the branches of the map in place (steps 1-3)."""
    _split(root, Branch())
    _filter(root, [], chains, filter_of)
    _rewrite_duplicates(root)


def branch_ditavalrefs(el: etree._Element) -> list[etree._Element]:
    """The ditavalref of el and of each ancestor (one each after splitting), outermost first."""
    found = []
    for node in (el, *el.iterancestors()):
        ref = next((c for c in node if isinstance(c.tag, str) and _is_ditavalref(c)), None)
        if ref is not None:
            found.append(ref)
    return found[::-1]


def rename(href: str, branch: Branch) -> str:
    """The generated name of a branch copy: prefix before the file name, suffix before the extension."""
    path, fragment = split_href(href)
    slash = path.rfind("/")
    directory, name = path[: slash + 1], path[slash + 1 :]
    if branch.resource_suffix:
        dot = name.rfind(".")
        name = name[:dot] + branch.resource_suffix + name[dot:] if dot != -1 else name + branch.resource_suffix
    if branch.resource_prefix:
        name = branch.resource_prefix + name
    return directory + name + (f"#{fragment}" if fragment is not None else "")


def add_suffix(href: str, suffix: str) -> str:
    path, fragment = split_href(href)
    dot, slash = path.rfind("."), path.rfind("/")
    path = path[:dot] + suffix + path[dot:] if dot > slash else path + suffix
    return path + (f"#{fragment}" if fragment is not None else "")


# ----------------------------------------------------------------------------- steps


def _is_ditavalref(el: etree._Element) -> bool:
    return DITAVALREF in (el.get("class") or "")


def _is_topicref(el: etree._Element) -> bool:
    return isinstance(el.tag, str) and classes.TOPICREF in (el.get("class") or "")


def _meta(ditavalref: etree._Element) -> dict[str, str]:
    found: dict[str, str] = {}
    for meta in ditavalref:
        if not isinstance(meta.tag, str) or " ditavalref-d/ditavalmeta " not in (meta.get("class") or ""):
            continue
        for el in meta:
            cls = el.get("class") or "" if isinstance(el.tag, str) else ""
            for token, field in _META.items():
                if token in cls:
                    found.setdefault(field, "".join(el.itertext()).strip())
    return found


def _split(el: etree._Element, branch: Branch) -> None:
    refs = [c for c in el if isinstance(c.tag, str) and _is_ditavalref(c)]
    if not refs:
        _process_attributes(el, branch)
        for child in [c for c in el if _is_topicref(c)]:
            _split(child, branch)
        return
    for ref in refs:
        el.remove(ref)
    copies = [el]
    for _ in refs[1:]:
        clone = _clone(el)
        copies[-1].addnext(clone)
        copies.append(clone)
    for copy, ref in zip(copies, refs):
        copy.insert(0, ref if copy is el else _clone(ref))
        current = branch.merge(ref)
        _process_attributes(copy, current)
        below = Branch(current.resource_prefix, current.resource_suffix)
        for child in [c for c in copy if _is_topicref(c) and not _is_ditavalref(c)]:
            _split(child, below)


def _clone(el: etree._Element) -> etree._Element:
    import copy

    clone = copy.deepcopy(el)
    clone.tail = el.tail
    return clone


def _process_attributes(el: etree._Element, branch: Branch) -> None:
    if branch.resource_prefix or branch.resource_suffix:
        href = el.get("copy-to") or el.get("href")
        if href and not is_external(el) and reference_format(el, split_href(href)[0]) == "dita":
            el.set(COPY_TO, rename(href, branch))
            el.attrib.pop("copy-to", None)
    if branch.keyscope_prefix or branch.keyscope_suffix:
        prefix, suffix = branch.keyscope_prefix or "", branch.keyscope_suffix or ""
        names = (el.get("keyscope") or "").split()
        el.set("keyscope", " ".join(f"{prefix}{n}{suffix}" for n in names) if names else prefix + suffix)


def _filter(el: etree._Element, filters: list[Filter], chains, filter_of) -> None:
    for child in list(el):
        if not isinstance(child.tag, str):
            continue
        ref = next((c for c in child if isinstance(c.tag, str) and _is_ditavalref(c)), None)
        here = [*filters, filter_of(ref)] if ref is not None else filters
        if child.get("class") is not None and any(f.excludes(child.attrib, chains) for f in here):
            remove(child)
        else:
            _filter(child, here, chains, filter_of)


def _target(el: etree._Element) -> str | None:
    if not _is_topicref(el) or _is_ditavalref(el) or is_external(el):
        return None
    name = el.get(COPY_TO) or el.get("copy-to") or el.get("href")
    if not name or reference_format(el, split_href(name)[0]) != "dita":
        return None
    return name


def _rewrite_duplicates(root: etree._Element) -> None:
    by_target: dict[str, dict[tuple[str, ...], list[etree._Element]]] = {}
    for el in root.iter():
        name = _target(el) if isinstance(el.tag, str) else None
        if name is None:
            continue
        filters = tuple(sorted({r.get("href") or "" for r in branch_ditavalrefs(el)}))
        by_target.setdefault(split_href(name)[0], {}).setdefault(filters, []).append(el)
    for groups in by_target.values():
        if len(groups) < 2:
            continue
        keep = () if () in groups else next(iter(groups))
        renamed = [g for g in groups if g != keep]
        for index, key in enumerate(renamed, start=1):
            for el in groups[key]:
                el.set(COPY_TO, add_suffix(_target(el), f"-{index}"))
