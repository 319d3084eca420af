"""Filtering a map or a topic: an element whose own attributes exclude it goes, with its subtree
(the profile's filter, plus a branch's filters for a branch copy)."""

from __future__ import annotations

import copy

from lxml import etree

from valid.dita.ditaval import Filter, props_chains
from valid.dita.loader import SourceFile
from valid.dita.stages.nodes import remove


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
        stack = [root]
        while stack:
            parent = stack.pop()
            for child in list(parent):
                if not isinstance(child.tag, str):
                    continue
                if excluded(child):
                    remove(child)
                else:
                    stack.append(child)
        return root

    def _filtered(self, sf: SourceFile, extra: tuple[Filter, ...] = ()) -> etree._Element | None:
        """The file filtered by this profile (and branch filters; unresolved): the source of conref targets."""
        key = (sf.file, extra)
        if key not in self.filtered:
            root = copy.deepcopy(sf.root)
            self.filtered[key] = self._filter(root, file_chains(root), extra)
        return self.filtered[key]


def file_chains(root: etree._Element):
    domains = root.get("domains")
    if domains is None and etree.QName(root).localname == "dita":
        domains = " ".join(c.get("domains") or "" for c in root if isinstance(c.tag, str))
    return props_chains(domains)
