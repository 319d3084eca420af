"""Key spaces with DITA 1.3 key scopes, built the way DITA-OT 4.2.4 builds them (KeyrefReader).

Built from the already filtered, submap-inlined root map, so a key defined only in an excluded
branch does not exist. For every key scope (an element with @keyscope; several names give several
scopes with the same definitions):

1. its own definitions: the first definition of a key wins, reading first the scope element's own
   content outside submaps, then each submap in document order (DITA-OT reads a map's own
   definitions before those of the maps it references), never entering a child scope;
2. child scopes' definitions are added under scope-qualified names (`child.key`,
   `child.grandchild.key`), after its own definitions (an own key named `child.key` wins);
3. every definition of the parent scope's key space overrides the scope's own: ancestor scopes
   take precedence.

A key reference resolves in the key space of the scope its topicref sits in (the nearest
ancestor-or-self @keyscope of the topicref).

A key definition that refers to another key (`<keydef keys="a" keyref="b"/>`) takes, in its scope,
b's target and the attributes and metadata it lacks (DITA-OT's resolveIntermediate; a cycle is
left unresolved).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from lxml import etree


@dataclass(eq=False)
class KeyScope:
    name: str | None  # None: the root scope
    element: etree._Element
    own: dict[str, etree._Element]
    children: list[KeyScope] = field(default_factory=list)
    keys: dict[str, etree._Element] = field(default_factory=dict)  # the effective key space


def build(root: etree._Element) -> KeyScope:
    """The root key scope of a filtered, inlined map, every scope's effective key space filled in."""
    scopes = _read_scopes(root)
    top = scopes[0] if len(scopes) == 1 and scopes[0].name is None else KeyScope(None, root, {}, scopes)
    _inherit(top, {})
    _resolve_intermediate(top)
    return top


def scope_of(root_scope: KeyScope, el: etree._Element) -> KeyScope:
    """The key scope an element of the map resolves keys in."""
    chain = [a for a in (el, *el.iterancestors()) if (a.get("keyscope") or "").strip()]
    scope = root_scope
    for scoped in reversed(chain):
        # the first of the element's scope names; each name has the same definitions
        found = next((c for c in scope.children if c.element is scoped), None)
        if found is not None:
            scope = found
    return scope


def _names(el: etree._Element) -> list[str]:
    return (el.get("keyscope") or "").split()


def _read_scopes(el: etree._Element) -> list[KeyScope]:
    own = _own_keys(el)
    children: list[KeyScope] = []
    _child_scopes(el, children)
    names = _names(el)
    if not names:
        return [KeyScope(None, el, own, children)]
    return [KeyScope(name, el, own, children) for name in names]


def _child_scopes(el: etree._Element, found: list[KeyScope]) -> None:
    for child in el:
        if not isinstance(child.tag, str):
            continue
        if child.get("keyscope") is not None:
            found.extend(_read_scopes(child))
        else:
            _child_scopes(child, found)


def _is_map(el: etree._Element) -> bool:
    cls = el.get("class") or ""
    return " map/map " in cls or " ditaot-d/submap " in cls or el.tag == "submap"


def _own_keys(scope: etree._Element) -> dict[str, etree._Element]:
    maps = [scope]
    for child in scope:
        if isinstance(child.tag, str):
            _collect_maps(child, maps)
    keys: dict[str, etree._Element] = {}
    for m in maps:
        _read_map(m, keys)
    return keys


def _collect_maps(el: etree._Element, maps: list[etree._Element]) -> None:
    if el.get("keyscope") is not None:
        return
    if _is_map(el):
        maps.append(el)
    for child in el:
        if isinstance(child.tag, str):
            _collect_maps(child, maps)


def _read_map(el: etree._Element, keys: dict[str, etree._Element]) -> None:
    for key in (el.get("keys") or "").split():
        keys.setdefault(key, el)
    for child in el:
        if isinstance(child.tag, str) and not _is_map(child) and child.get("keyscope") is None:
            _read_map(child, keys)


def _qualified(scope: KeyScope, keys: dict[str, etree._Element], prefix: str) -> None:
    for child in scope.children:
        child_prefix = f"{prefix}{child.name}."
        for key, definition in child.own.items():
            keys.setdefault(child_prefix + key, definition)
        _qualified(child, keys, child_prefix)


def _inherit(scope: KeyScope, parent: dict[str, etree._Element]) -> None:
    keys = dict(scope.own)
    _qualified(scope, keys, "")
    keys.update(parent)  # ancestor scopes take precedence
    scope.keys = keys
    for child in scope.children:
        _inherit(child, keys)


# Attributes a key definition takes from the key it refers to when it has none (KeyrefReader).
_INHERITED = (
    "href", "audience", "platform", "product", "otherprops", "rev", "props", "linking", "toc", "print",
    "search", "format", "scope", "type", "{http://www.w3.org/XML/1998/namespace}lang", "dir", "translate",
    "processing-role", "cascade",
)


def _resolve_intermediate(scope: KeyScope) -> None:
    scope.keys = {key: _merged(scope, el, [el]) for key, el in scope.keys.items()}
    for child in scope.children:
        _resolve_intermediate(child)


def _merged(scope: KeyScope, el: etree._Element, seen: list[etree._Element]) -> etree._Element:
    ref = (el.get("keyref") or "").strip()
    target = scope.keys.get(ref) if ref else None
    if target is None or any(target is s for s in seen):
        return el
    target = _merged(scope, target, [*seen, target])
    merged = copy.deepcopy(el)
    merged.tail = None
    for att in _INHERITED:
        if merged.get(att) is None and target.get(att) is not None:
            merged.set(att, target.get(att))
    if _topicmeta(merged) is None and _topicmeta(target) is not None:
        merged.insert(0, copy.deepcopy(_topicmeta(target)))
    return merged


def _topicmeta(el: etree._Element) -> etree._Element | None:
    return next((c for c in el if isinstance(c.tag, str) and " map/topicmeta " in (c.get("class") or "")), None)
