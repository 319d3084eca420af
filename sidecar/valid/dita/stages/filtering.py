"""Filtering a map or a topic: an element whose own attributes exclude it goes, with its subtree
(the profile's filter, plus a branch's filters for a branch copy)."""

from __future__ import annotations

import copy
import functools
import re

from lxml import etree

from valid.dita.ditaval import FILTER_ATTRIBUTES, Filter, props_chains
from valid.dita.loader import IdIndex, SourceFile, id_index
from valid.dita.stages.nodes import remove


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


class FilterStage:
    """Filtering by the build's filter (and branch filters)."""

    def _filter(self, root: etree._Element, chains, extra: tuple[Filter, ...] = ()) -> etree._Element | None:
        """Remove every element whose own attributes exclude it (with its subtree); None if the root goes.
        An element goes when the profile's filter or any of the extra (branch) filters excludes it."""
        filters = (self.filter, *extra)

        def excluded(el: etree._Element) -> bool:
            return el.get("class") is not None and any(f.excludes(el.attrib, chains) for f in filters)

        if excluded(root):
            return None
        # Only an element with a filtering attribute can be excluded: lxml finds those (in
        # document order) instead of a walk over every element. One inside an element already
        # removed is no longer under the root and is skipped, as the removal took it along.
        for el in _candidates(tuple(chains))(root):
            if _under(el, root) and excluded(el):
                remove(el)
        return root

    def _filtered(self, sf: SourceFile, extra: tuple[Filter, ...] = ()) -> etree._Element | None:
        """The file filtered by this profile (and branch filters; unresolved): the source of conref targets."""
        key = (sf.file, extra)
        if key not in self.filtered:
            root = copy.deepcopy(sf.root)
            self.filtered[key] = self._filter(root, file_chains(root), extra)
        return self.filtered[key]

    def _forget_filtered(self, sf: SourceFile, extra: tuple[Filter, ...] = ()) -> None:
        """Drop a filtered file that is written: a build then holds the filtered files that later
        topics still reference, not a filtered copy of the whole doc set. One asked for again is
        filtered again, to the same tree; one that a conref push changed is kept (only the push
        stage makes it)."""
        if sf.file in self.pushed:
            return
        self.filtered.pop((sf.file, extra), None)
        if not extra:
            self.id_indexes.pop(sf.file, None)

    def _ids(self, sf: SourceFile) -> IdIndex:
        """The id index (valid.dita.loader.id_index) of the file as this profile filters it, made on
        first use. Conref pushes change filtered files: the push stage drops the indexes when done."""
        index = self.id_indexes.get(sf.file)
        if index is None:
            filtered = self._filtered(sf)
            index = self.id_indexes[sf.file] = id_index(filtered) if filtered is not None else {}
        return index


@functools.cache
def _candidates(chains: tuple[tuple[str, ...], ...]) -> etree.XPath:
    """Descendants with @class and an attribute a filter reads (valid.dita.ditaval.Filter.excludes:
    the filter attributes and every name of the props specialization chains)."""
    names = dict.fromkeys([*FILTER_ATTRIBUTES, *(name for chain in chains for name in chain)])
    tests = " or ".join(f"@{name}" for name in names if _NAME.fullmatch(name))
    unusual = [name for name in names if not _NAME.fullmatch(name)]
    if unusual:  # not an XML name: an XPath cannot test it, so every element is a candidate
        return etree.XPath("descendant::*[@class]")
    return etree.XPath(f"descendant::*[@class][{tests}]")


def _under(el: etree._Element, root: etree._Element) -> bool:
    top = el
    while (parent := top.getparent()) is not None:
        top = parent
    return top is root


def file_chains(root: etree._Element):
    domains = root.get("domains")
    if domains is None and etree.QName(root).localname == "dita":
        domains = " ".join(c.get("domains") or "" for c in root if isinstance(c.tag, str))
    return props_chains(domains)
