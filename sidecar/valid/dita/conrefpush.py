"""Conref push (DITA 1.3 @conaction) as DITA-OT 4.2.4 does it (ConrefPushReader/Parser, conrefImpl).

Pushes are read from each pushing topic as the profile filters it, in document order:

- `pushreplace` (with @conref to the target) replaces the target; without an @id of its own the
  pushed element takes the target's id;
- `pushbefore` elements are collected until the next `mark` with @conref, then pushed before that
  target;
- a `mark` with @conref followed by a `pushafter` pushes that element after the target.

A @conkeyref names the target through a key, as DITA-OT resolves it to a @conref first. The
target is found in its file as the profile filters it (a target that is gone takes no push,
warned). Pushed elements lose @conaction and @conref and keep their own @xtrf/@xtrc. In the pushing
topic the pushed elements stay, without @conaction and @conref ("still rendered in the original
context", conrefImpl.xsl), and marks are removed. Pushes are applied before conrefs are resolved
(DITA-OT's topic-conrefpush runs before topic-conref), so a conref to a pushed-to element sees
the pushed content.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from valid.dita.stages.nodes import remove

PUSH_ACTIONS = ("pushbefore", "pushafter", "pushreplace")


@dataclass
class Push:
    action: str
    target: str  # the @conref value, relative to the pushing file
    elements: list[etree._Element]  # the pushing elements, in document order
    origin: etree._Element  # where to report problems


def has_pushes(root: etree._Element) -> bool:
    return any(isinstance(el.tag, str) and el.get("conaction") for el in root.iter())


def collect(
    root: etree._Element,
    warn: Callable[[etree._Element, str], None],
    conref_of: Callable[[etree._Element], str | None] = lambda el: el.get("conref"),
) -> list[Push]:
    """The pushes of one (filtered) topic, and the topic cleaned: marks removed, pushing
    elements kept without @conaction/@conref/@conkeyref. `conref_of` gives an element's target as
    a @conref value: DITA-OT turns a @conkeyref into one before it pushes (its keyref step runs
    first), so the caller resolves keys; None when there is no target (the caller warns about a key)."""
    pushes: list[Push] = []
    before: list[etree._Element] = []
    mark_target: str | None = None
    for el in list(root.iter()):
        if not isinstance(el.tag, str) or el.get("conaction") is None:
            continue
        action = el.get("conaction").strip().lower()
        conref = conref_of(el)
        if action == "mark":
            if before and conref:
                pushes.append(Push("pushbefore", conref, before, before[0]))
                before = []
            else:
                mark_target = conref
        elif action == "pushbefore":
            before.append(el)
        elif action == "pushafter":
            if mark_target is None:
                warn(el, "pushafter without a preceding conaction='mark' element naming its target; nothing is pushed")
            else:
                pushes.append(Push("pushafter", mark_target, [el], el))
                mark_target = None
        elif action == "pushreplace":
            if not conref:
                if el.get("conkeyref") is None:  # an unresolved key is warned by conref_of
                    warn(el, "pushreplace without @conref; nothing is pushed")
            else:
                pushes.append(Push("pushreplace", conref, [el], el))
    if before:
        warn(before[0], "pushbefore without a following conaction='mark' element naming its target; nothing is pushed")
    pushes = [Push(p.action, p.target, [_pushed(e, p) for e in p.elements], p.origin) for p in pushes]
    _clean(root)
    return pushes


def apply(push: Push, target: etree._Element, already_replaced: bool, warn: Callable[[etree._Element, str], None]) -> bool:
    """Apply one push at its target element; True when it replaced the target."""
    elements = [copy.deepcopy(e) for e in push.elements]
    if push.action == "pushreplace":
        if already_replaced:
            warn(push.origin, f"'{push.target}' is already replaced by another push; this push is ignored")
            return False
        replacement = elements[0]
        replacement.tail = target.tail
        target.getparent().replace(target, replacement)
        return True
    anchor = target
    for e in elements:
        e.tail = "\n"
        if push.action == "pushbefore":
            target.addprevious(e)
        else:
            anchor.addnext(e)
            anchor = e
    return False


def _pushed(el: etree._Element, push: Push) -> etree._Element:
    result = copy.deepcopy(el)
    result.tail = None
    for att in ("conaction", "conref", "conkeyref"):
        result.attrib.pop(att, None)
    if push.action == "pushreplace" and result.get("id") is None:
        fragment = push.target.partition("#")[2]
        result.set("id", fragment.rpartition("/")[2])
    return result


def _clean(root: etree._Element) -> None:
    for el in list(root.iter()):
        if not isinstance(el.tag, str) or el.get("conaction") is None:
            continue
        if el.get("conaction").strip().lower() == "mark":
            if el.getparent() is not None:
                remove(el)
        else:
            # The pushing element stays with its own content; its @conkeyref names where it
            # pushes, not what it pulls.
            for att in ("conaction", "conref", "conkeyref"):
                el.attrib.pop(att, None)
