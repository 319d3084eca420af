"""Small element helpers shared by the preprocess stages."""

from __future__ import annotations

from lxml import etree


def line_of(el: etree._Element | None) -> int:
    if el is None:
        return 0
    xtrc = el.get("xtrc") or ""
    _, _, rest = xtrc.partition(";")
    line = rest.partition(":")[0]
    return int(line) if line.isdigit() else (el.sourceline or 0)


def remove(el: etree._Element) -> None:
    """Remove an element and its subtree, keeping the text that follows it."""
    parent = el.getparent()
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def processing_role(el: etree._Element) -> str:
    """processing-role cascades: the nearest ancestor-or-self value, 'normal' by default."""
    for node in (el, *el.iterancestors()):
        role = node.get("processing-role")
        if role:
            return role
    return "normal"
