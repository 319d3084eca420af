"""Key resolution: topicref keyrefs, per-scope topic copies, keyref text and link targets in topics."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from urllib.parse import quote, unquote

from lxml import etree

from valid.dita import classes, glossterms, keyspace
from valid.dita.loader import SourceFile, has_url_scheme, is_external, reference_format, split_href
from valid.dita.stages.nodes import processing_role


# Elements whose empty content a keyref fills with the key's text.
_TEXT_KEYREF = (" topic/ph ", " topic/keyword ", " topic/term ", " topic/cite ", " topic/dt ")
LINK_KEYREF = (" topic/xref ", " topic/link ")


class KeyStage:
    """Key references resolved in their key scope (valid.dita.keyspace)."""

    def _resolve_topicref_keys(self, kept_map: etree._Element) -> None:
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or el.get("keyref") is None:
                continue
            if classes.TOPICREF not in (el.get("class") or ""):
                continue
            key = el.get("keyref").split("/")[0]
            definition = keyspace.scope_of(self.root_scope, el).keys.get(key)
            if definition is None:
                if el.get("href") is None:
                    self._warn(el, "keyref", f"[DOTJ047I] key '{key}' is not defined in profile {self.name}; the topicref has no target")
                continue
            if definition.get("href") is None:
                continue
            el.set("href", definition.get("href"))
            for att in ("format", "scope", "type"):
                if definition.get(att) is not None:
                    el.set(att, definition.get(att))

    def _scope_copies(self, kept_map: etree._Element) -> None:
        """Give every referenced topic the key scope of its first reference; a topic with key
        references referenced from another scope is resolved again as `<name>-<n>.<ext>`."""
        usage: dict[Path, int] = {}
        has_keys: dict[Path, bool] = {}
        named: dict[tuple[int, Path], Path] = {}
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or classes.TOPICREF not in (el.get("class") or ""):
                continue
            href = el.get("href")
            if not href or is_external(el) or has_url_scheme(href) or reference_format(el, split_href(href)[0]) != "dita":
                continue
            path = self._map_target(href)
            if path is None or (path not in self.outputs and path not in self.docset.files):
                continue
            scope = keyspace.scope_of(self.root_scope, el)
            source = self._output(path).source
            if source.file not in has_keys:
                has_keys[source.file] = _has_key_references(source.root)
            if not has_keys[source.file]:
                self.scopes.setdefault(path, scope)
                continue
            task = (id(scope), path)
            if usage.get(path, 0) and task in named:
                new = named[task]
            else:
                used = usage.get(path, 0) + (0 if processing_role(el) == "resource-only" else 1)
                usage[path] = used
                new = self._unused(path.with_name(f"{path.stem}-{used - 1}{path.suffix}")) if used > 1 else path
                if new != path:
                    self.outputs[new] = self._output(path)
                named[task] = new
            self.scopes.setdefault(new, scope)
            if new != path:
                fragment = split_href(href)[1]
                el.set("href", self._map_href(new) + (f"#{fragment}" if fragment is not None else ""))

    def _resolve_keyrefs(self, root: etree._Element, sf: SourceFile, terms_seen: set[str] | None = None) -> None:
        """`terms_seen`: the keyref values of the terms before `root` in its rendered document
        (the topics a chunk="to-content" merges); updated with the terms of `root`."""
        if terms_seen is None:
            terms_seen = set()  # keyref values of the terms before this one, in document order
        for el in list(root.iter()):
            if not isinstance(el.tag, str) or el.get("keyref") is None:
                continue
            cls = el.get("class") or ""
            first_term = " topic/term " in cls and el.get("keyref") not in terms_seen
            if " topic/term " in cls:
                terms_seen.add(el.get("keyref"))
            key = el.get("keyref").split("/")[0]
            definition = self.keys.get(key)
            if definition is None:
                self._warn(
                    el, "keyref", f"[DOTJ047I] key '{key}' is not defined in profile {self.name}; the element keeps its fallback content"
                )
                continue
            empty = len(el) == 0 and not (el.text or "").strip()
            if any(t in cls for t in LINK_KEYREF) or " topic/image " in cls:
                href = definition.get("href")
                if href is not None and el.get("href") is None:
                    el.set("href", self._href_from_map(definition, href, sf))
                    for att in ("format", "scope"):
                        if definition.get(att) is not None and el.get(att) is None:
                            el.set(att, definition.get(att))
                if empty and " topic/image " not in cls:
                    text = _key_text(definition, keyword_first=False, titled=_title_replaces_text(definition))
                    if text is not None:
                        _fill(el, text)
                    else:
                        el.text = _link_fallback_text(definition)
            elif empty and " topic/term " in cls and (entry := self._glossentry(definition)) is not None:
                el.text = glossterms.glossary_text(entry, glossterms.shows_full_form(el, first_term))
            elif empty and any(t in cls for t in _TEXT_KEYREF):
                text = _key_text(definition, keyword_first=True, titled=_title_replaces_text(definition))
                if text is not None:
                    _fill(el, text)
                elif not self._pull_key_target_title(el, definition, sf):
                    self._warn(el, "keyref", f"key '{key}' has no text (keyword, linktext or navtitle) in profile {self.name}")

    def _pull_key_target_title(self, el: etree._Element, definition: etree._Element, sf: SourceFile) -> bool:
        """An empty keyword or phrase whose key names a local topic and has no text of its own shows
        the topic's title, as this profile filters it: DITA-OT makes the element a link to the key's
        target and gives it the target's title (its HTML5 build shows "See GRANT Statement", not
        "See ")."""
        href = definition.get("href")
        if not href or is_external(definition) or has_url_scheme(href):
            return False
        if reference_format(definition, split_href(href)[0]) != "dita":
            return False
        return self._append_target_title(el, self._href_from_map(definition, href, sf), sf)

    def _glossentry(self, definition: etree._Element) -> etree._Element | None:
        """The glossentry a key definition's local DITA target holds, as this profile filters it."""
        href = definition.get("href")
        if href is None or is_external(definition) or has_url_scheme(href):
            return None
        if reference_format(definition, split_href(href)[0]) != "dita":
            return None
        path = self._map_target(href)
        sf = self.docset.files.get(path) if path is not None else None
        filtered = self._filtered(sf) if sf is not None else None
        return glossterms.find_glossentry(filtered, split_href(href)[1]) if filtered is not None else None

    def _href_from_map(self, definition: etree._Element, href: str, sf: SourceFile) -> str:
        if is_external(definition) or has_url_scheme(href):
            return href
        path, fragment = split_href(href)
        if not path:
            return href
        target = self.docset.resolve(self.docset.map_dir, unquote(path))
        rel = quote(Path(os.path.relpath(target, sf.file.parent)).as_posix(), safe="/-._~")
        return rel + (f"#{fragment}" if fragment is not None else "")


def _has_key_references(root: etree._Element) -> bool:
    return any(
        isinstance(el.tag, str) and (el.get("keyref") is not None or el.get("conkeyref") is not None)
        for el in root.iter()
    )


def _title_replaces_text(definition: etree._Element) -> bool:
    """True when DITA-OT shows the target's title instead of the key's linktext and navtitle: its
    mappull step replaces both on a key definition that names a local DITA topic, unless
    @locktitle="yes" (its HTML5 build shows the topic's title, not the key's linktext)."""
    href = definition.get("href")
    if not href or is_external(definition) or has_url_scheme(href):
        return False
    return reference_format(definition, split_href(href)[0]) == "dita" and definition.get("locktitle") != "yes"


def _key_text(definition: etree._Element, *, keyword_first: bool, titled: bool = False) -> etree._Element | None:
    """The element whose content a keyref copies: keywords/keyword, then linktext, then navtitle;
    only keywords/keyword where the target's title replaces the other two (`titled`)."""
    meta = next(
        (c for c in definition if isinstance(c.tag, str) and classes.TOPICMETA in (c.get("class") or "")), None
    )
    if meta is None:
        return None
    order = [" topic/keyword ", " topic/linktext ", " topic/navtitle "]
    if not keyword_first:
        order = order[1:] + order[:1]
    if titled:
        order = [" topic/keyword "]
    for token in order:
        for c in meta.iter():
            if not isinstance(c.tag, str) or token not in (c.get("class") or ""):
                continue
            if token == " topic/keyword " and " topic/keywords " not in (c.getparent().get("class") or ""):
                continue
            return c
    return None


def _link_fallback_text(definition: etree._Element) -> str | None:
    """The text DITA-OT's keyref step gives an empty link whose key, an external target, has no
    link text: the key's @navtitle, else its URL (what its HTML5 build shows as the link). A DITA
    target gets its title later, from the topic (links.py)."""
    href = definition.get("href")
    if not href or not (is_external(definition) or has_url_scheme(href)):
        return None
    return definition.get("navtitle") or href


def _fill(el: etree._Element, source: etree._Element | None) -> None:
    if source is None:
        return
    pulled = copy.deepcopy(source)
    el.text = pulled.text
    for child in list(pulled):
        el.append(child)
