"""Conref push, then conref/conkeyref and conref ranges, as DITA-OT's conrefImpl resolves them."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from urllib.parse import quote, unquote

from lxml import etree

from valid.dita import classes, conrefpush
from valid.dita.loader import (
    XPATH_ATTR,
    SourceFile,
    conrefend_exists,
    find_fragment,
    first_topic,
    has_url_scheme,
    is_external,
    split_href,
)
from valid.dita.stages.nodes import remove


# Attributes of a conref'ing element that never override the target's.
_CONREF_OWN = ("conref", "conrefend", "conkeyref", "conaction", "xtrf", "xtrc", XPATH_ATTR)
_USE_TARGET = "-dita-use-conref-target"


class ConrefStage:
    """Conref push and pull."""

    def _push(self, references: dict[Path, bool]) -> None:
        """Conref push (valid.dita.conrefpush) from every topic of the build, into the targets as
        this profile filters them, before any conref is resolved."""
        sources = sorted({self._output(p).source.file: self._output(p).source for p in references}.items())
        replaced: set[tuple[Path, str]] = set()
        for _, sf in sources:
            if not conrefpush.has_pushes(sf.root):
                continue
            filtered = self._filtered(sf)
            if filtered is None:
                continue
            self.pushed.add(sf.file)
            warn = lambda el, message: self._warn(el, "conaction", message)  # noqa: E731
            through_keys: dict[str, str] = {}  # push target -> the @conkeyref it came from
            for push in conrefpush.collect(filtered, warn, lambda el, sf=sf: self._push_target(el, sf, through_keys)):
                path, fragment = split_href(push.target)
                target_sf = self.docset.files.get(self.docset.resolve(sf.file.parent, unquote(path))) if path else sf
                if target_sf is None:
                    if push.target in through_keys:  # the loader saw no @conref to warn about
                        self._warn(
                            push.origin, "missing-file",
                            f"[DOTX008E] conref push through @conkeyref='{through_keys[push.target]}': "
                            "the key names a file that does not exist; nothing is pushed",
                        )
                    continue  # a @conref to a file the doc set lacks: warned when it was loaded
                target_root = self._filtered(target_sf) if fragment else None
                target = find_fragment(target_root, fragment) if target_root is not None else None
                if target is None or target.getparent() is None:
                    warn(push.origin, f"conref push target '{push.target}' is missing or excluded in profile {self.name}; nothing is pushed")
                    continue
                key = (target_sf.file, fragment)
                self.pushed.add(target_sf.file)
                if conrefpush.apply(push, target, key in replaced, warn):
                    replaced.add(key)
        self.id_indexes.clear()  # made before a push changed the filtered files (the map's conrefs)

    def _push_target(self, el: etree._Element, sf: SourceFile, through_keys: dict[str, str]) -> str | None:
        """A pushing element's target as a @conref value relative to its file: its @conref, else
        its @conkeyref through the root key scope (DITA-OT resolves keys before it pushes)."""
        if el.get("conref") is not None or el.get("conkeyref") is None:
            return el.get("conref")
        key, _, element_id = el.get("conkeyref").partition("/")
        definition = self.keys.get(key)
        href = definition.get("href") if definition is not None else None
        file = self._map_target(href) if href else None
        if file is None:
            self._warn(el, "conkeyref", f"[DOTJ046E] key '{key}' is not defined in profile {self.name}; nothing is pushed")
            return None
        topic_id = split_href(href)[1]
        if topic_id is None:
            loaded = self.docset.files.get(file)
            first = first_topic(loaded.root) if loaded is not None else None
            topic_id = first.get("id") if first is not None else ""
        path = quote(self.docset.relative(file, sf.file.parent), safe="/-._~")
        target = f"{path}#{topic_id}/{element_id}" if element_id else f"{path}#{topic_id}"
        through_keys[target] = el.get("conkeyref")
        return target

    def _resolve_conrefs(self, el: etree._Element, stack: list[tuple[str, str]]) -> None:
        for child in list(el):
            if isinstance(child.tag, str):
                self._resolve_element(child, stack)

    def _resolve_element(self, el: etree._Element, stack: list[tuple[str, str]]) -> None:
        if el.get("conaction") is not None:
            # A push element outside the pushing topics (e.g. in a conref target): as conrefImpl,
            # a mark goes, anything else stays without its push attributes.
            if el.get("conaction").strip().lower() == "mark":
                remove(el)
                return
            el.attrib.pop("conaction", None)
            el.attrib.pop("conref", None)
            self._resolve_conrefs(el, stack)
        elif el.get("conref") is not None or el.get("conkeyref") is not None:
            self._conref(el, stack)
        else:
            self._resolve_conrefs(el, stack)

    def _conref(self, el: etree._Element, stack: list[tuple[str, str]]) -> None:
        source = self.by_uri.get(el.get("xtrf"))
        found = self._conref_target(el, source)
        if found is None:
            return  # undefined conkeyref without fallback: element kept as authored (warned)
        target_sf, fragment = found
        if target_sf is None:
            remove(el)
            return
        where = f"'{el.get('conref') or el.get('conkeyref')}'"
        if (target_sf.uri, fragment) in stack:
            self._warn(el, "conref", f"conref cycle through {where}; the element is dropped")
            remove(el)
            return
        if target_sf.file != (source.file if source else None) and target_sf.file not in self.conref_targets:
            self.conref_targets.append(target_sf.file)
        filtered = self._filtered(target_sf)
        context_topic = _enclosing_topic_id(el)
        if fragment.startswith("./") and context_topic:
            fragment = f"{context_topic}/{fragment[2:]}"
        target = find_fragment(filtered, fragment, index=self._ids(target_sf)) if filtered is not None else None
        if target is None and find_fragment(target_sf.root, fragment, el) is None:
            self._missing_target(el, target_sf, fragment)
            return
        if target is None:
            self._warn(
                el,
                "conref",
                f"[DOTX010E] conref target {where} is excluded (or replaced by a conref push) in profile {self.name}; "
                "the referencing element is dropped",
            )
            remove(el)
            return
        targets = [target]
        if el.get("conrefend") is not None:
            targets = self._conref_range(el, target, target_sf, filtered)
        results = [self._pulled(el, t, i == 0) for i, t in enumerate(targets)]
        results[-1].tail = el.tail
        parent = el.getparent()
        position = parent.index(el)
        parent.remove(el)
        for offset, r in enumerate(results):
            parent.insert(position + offset, r)
        # Pulled content may conref further (even the target itself: a conref chain).
        for r in results:
            self._resolve_element(r, [*stack, (target_sf.uri, fragment)])

    def _missing_target(self, el: etree._Element, target_sf: SourceFile, fragment: str) -> None:
        """A target that no build has (not in its file at all): DITA-OT drops the referencing
        element (DOTX010E). The loader warned about a @conref; a @conkeyref is warned here, in
        words that do not name the profile, so that every build's warning is one warning."""
        if el.get("conkeyref") is not None:
            self._warn(
                el, "conkeyref",
                f"[DOTX010E] @conkeyref='{el.get('conkeyref')}': no element '{fragment}' in {target_sf.path}; "
                "the element is dropped",
            )
        remove(el)

    def _conref_target(self, el: etree._Element, source: SourceFile | None):
        """(target file, fragment) for @conkeyref (falling back to @conref) or @conref; None to
        keep the element as authored (an undefined key without @conref); (None, None) to drop it
        (its file is missing or unreadable, warned when the doc set was loaded)."""
        conkeyref = el.get("conkeyref")
        if conkeyref is not None:
            key, _, element_id = conkeyref.partition("/")
            definition = self.keys.get(key)
            if definition is not None and definition.get("href") is not None:
                file = self._map_target(definition.get("href"))
                sf = self.docset.files.get(file) if file else None
                if sf is not None:
                    topic_id = split_href(definition.get("href"))[1]
                    if topic_id is None:
                        first = first_topic(sf.root)
                        topic_id = first.get("id") if first is not None else ""
                    fragment = f"{topic_id}/{element_id}" if element_id else topic_id
                    return sf, fragment
                if file is not None:
                    # The key names a file the doc set lacks (warned at its definition): DITA-OT
                    # looks for the target there, finds none (DOTX010E) and drops the element.
                    self._warn(
                        el, "conkeyref",
                        f"[DOTX010E] @conkeyref='{conkeyref}': key '{key}' names a file that does not exist; "
                        "the element is dropped",
                    )
                    return None, None
            if el.get("conref") is None:
                self._warn(
                    el, "conkeyref",
                    f"[DOTJ046E] key '{key}' is not defined in profile {self.name}; the element keeps its own content",
                )
                return None
        path, fragment = split_href(el.get("conref"))
        if source is None:
            return None
        if path:
            file = self.docset.resolve(source.file.parent, unquote(path))
            target = self.docset.files.get(file)
        else:
            target = source
        if target is None or not fragment:
            return None, None
        return target, fragment

    def _conref_range(self, el, start, target_sf: SourceFile, filtered):
        """The start and its following siblings up to the one whose @id is the conrefend's element
        id (DITA-OT's conrefImpl looks for the end only there, by id, in the filtered target). An
        end that is filtered out or not a following sibling pulls the start alone (DOTX071E)."""
        end_id = _conrefend_id(el.get("conrefend"))
        siblings = [start]
        for sibling in start.itersiblings():
            if not isinstance(sibling.tag, str):
                continue
            siblings.append(sibling)
            if sibling.get("id") == end_id:
                return siblings
        if not conrefend_exists(self.docset, self.by_uri.get(el.get("xtrf")), el, target_sf):
            return [start]  # no such element in any build: warned once when the doc set was loaded
        self._warn(
            el,
            "conrefend",
            f"conref range end '{el.get('conrefend')}' is not a following sibling of the start in profile "
            f"{self.name} (excluded or misplaced); only the start is pulled",
        )
        return [start]

    def _pulled(self, el: etree._Element, target: etree._Element, first: bool) -> etree._Element:
        """The element that replaces a conref: referencer's attributes win, target's content and
        debug attributes (@xtrf/@xtrc, as in DITA-OT)."""
        pulled = copy.deepcopy(target)
        if not first:
            # The rest of a conref range loses its @id, as in DITA-OT (a topic's is regenerated).
            if not classes.has_class(pulled, classes.TOPIC):
                pulled.attrib.pop("id", None)
            return pulled
        result = etree.Element(el.tag)
        for att, value in target.attrib.items():
            # The target's @id is not the referencer's: the element keeps its own @id or has none,
            # as DITA-OT's conrefImpl makes it (so its chunk id is its own).
            if att != "id":
                result.set(att, value)
        for att, value in el.attrib.items():
            if att in _CONREF_OWN:
                continue
            if value == _USE_TARGET:
                if target.get(att) is None:
                    del result.attrib[att]
                continue
            result.set(att, value)
        result.text = pulled.text
        for child in list(pulled):
            result.append(child)
        result.tail = pulled.tail
        result.sourceline = target.sourceline
        return result

    def _rebase_pulled_hrefs(self, root: etree._Element, sf: SourceFile) -> None:
        """Links inside content pulled from another directory must still point at their targets."""
        for el in root.iter():
            if not isinstance(el.tag, str) or el.get("href") is None or el.get("xtrf") == sf.uri:
                continue
            origin = self.by_uri.get(el.get("xtrf"))
            href = el.get("href")
            if origin is None or origin.file.parent == sf.file.parent or origin.format == "ditamap":
                continue
            if is_external(el) or has_url_scheme(href):
                continue
            path, fragment = split_href(href)
            if not path:
                continue
            target = self.docset.resolve(origin.file.parent, unquote(path))
            rel = quote(Path(os.path.relpath(target, sf.file.parent)).as_posix(), safe="/-._~")
            el.set("href", rel + (f"#{fragment}" if fragment is not None else ""))


def _conrefend_id(conrefend: str) -> str:
    """The element id a @conrefend names (conrefImpl.xsl): after 'topic/', else after '#'."""
    fragment = conrefend.partition("#")[2] if "#" in conrefend else conrefend
    return fragment.rpartition("/")[2] if "/" in fragment else fragment


def _enclosing_topic_id(el: etree._Element) -> str | None:
    for anc in el.iterancestors():
        if classes.has_class(anc, classes.TOPIC):
            return anc.get("id")
    return None
