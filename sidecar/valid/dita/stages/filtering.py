"""Filtering a map or a topic: an element whose own attributes exclude it goes, with its subtree
(the profile's filter, plus a branch's filters for a branch copy)."""

from __future__ import annotations

import copy
import functools
import re

from lxml import etree

from valid.dita.ditaval import FILTER_ATTRIBUTES, Filter, props_chains
from valid.dita.loader import SourceFile
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
