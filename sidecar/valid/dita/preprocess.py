"""An emulation of DITA-OT 4.x `preprocess2` for one profile: a job directory the stylesheet reads.

The order is DITA-OT's (filter-stage=early), because the order decides scope:

1. inline submaps into the root map (mapref and topicref format="ditamap"): a `submap` wrapper
   carries the mapref's attributes; the submap root's profiling attributes are copied onto its
   first-level topicrefs that lack their own (DITA-OT's maprefImpl, dita-filtering.md §B.3);
2. filter the map: an element whose own attributes exclude it goes, with its subtree;
3. build the key space from the filtered map: first surviving definition in document order
   (key scopes: warned, treated as one flat space); resolve topicref keyrefs to hrefs;
4. reach topics only through kept references (no link crawl);
5. filter each topic the same way, then resolve conref/conkeyref (the target filtered in its own
   file by its own path; a target that is gone drops the referencing element, as DITA-OT does) and
   keyref text;
6. write the files and `.job.xml` (docs/architecture.md, "The job directory").
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

from lxml import etree

from valid.contracts import ExportWarning
from valid.dita import classes
from valid.dita.ditaval import Ditaval, Filter, props_chains
from valid.dita.loader import (
    VALID_NS,
    XPATH_ATTR,
    DocSet,
    SourceFile,
    file_uri,
    find_fragment,
    first_topic,
    has_url_scheme,
    is_external,
    reference_format,
    split_href,
)
from valid.errors import DitaError

UNFILTERED = "_unfiltered"

# Profiling attributes a submap root passes to its first-level topicrefs (maprefImpl.xsl).
_SUBMAP_ROOT_ATTRIBUTES = ("audience", "product", "platform", "otherprops", "props", "rev")
# Attributes of a conref'ing element that never override the target's.
_CONREF_OWN = ("conref", "conrefend", "conkeyref", "conaction", "xtrf", "xtrc", XPATH_ATTR)
_USE_TARGET = "-dita-use-conref-target"
# Elements whose empty content a keyref fills with the key's text.
_TEXT_KEYREF = (" topic/ph ", " topic/keyword ", " topic/term ", " topic/cite ", " topic/dt ")
_LINK_KEYREF = (" topic/xref ", " topic/link ")


@dataclass
class JobFile:
    source: SourceFile
    format: str  # dita / ditamap
    input: bool = False
    resource_only: bool = False
    conref_target: bool = False
    kept: bool = True  # False: the topic root was excluded; the file is written empty


@dataclass
class Job:
    name: str
    directory: Path
    files: list[JobFile]
    warnings: list[ExportWarning] = field(default_factory=list)

    @property
    def job_file(self) -> Path:
        return self.directory / ".job.xml"


def make_filter(docset: DocSet, ditaval: Ditaval | None) -> Filter:
    """The filter DITA-OT preprocess2 builds: DITAVAL + print defaults, refined by the subject
    schemes that the resolved root map itself contains (not by a scheme given only on the command
    line, which a DITA-OT build of the same map would not see)."""
    from valid.dita.scheme import load_scheme  # scheme imports loader; keep module imports acyclic

    hierarchy: dict[str, dict[str, list[str]]] = {}
    if ditaval is not None and any(r.val for r in ditaval.rules):
        for sf in docset.files.values():
            if classes.has_class(sf.root, classes.SUBJECT_SCHEME):
                for att, table in load_scheme(sf.file, root=docset.root_dir).hierarchy().items():
                    merged = hierarchy.setdefault(att, {})
                    for value, kids in table.items():
                        merged.setdefault(value, kids)
    return Filter(ditaval, hierarchy=hierarchy)


def preprocess(docset: DocSet, ditaval: Ditaval | None, job_dir: Path, *, name: str = "") -> Job:
    """Write one profile's job directory and return what is in it."""
    return _Preprocessor(docset, make_filter(docset, ditaval), name or UNFILTERED).run(Path(job_dir))


class _Preprocessor:
    def __init__(self, docset: DocSet, flt: Filter, name: str):
        self.docset = docset
        self.filter = flt
        self.name = name
        self.warnings: list[ExportWarning] = []
        self.by_uri = {sf.uri: sf for sf in docset.files.values()}
        self.filtered: dict[Path, etree._Element | None] = {}
        self.keys: dict[str, etree._Element] = {}
        self.conref_targets: list[Path] = []

    # ------------------------------------------------------------------------- driver

    def run(self, job_dir: Path) -> Job:
        docset = self.docset
        root_map = docset.root_map
        resolved = self._inline(root_map, [root_map.file])
        chains = props_chains(resolved.get("domains"))
        kept_map = self._filter(resolved, chains)
        if kept_map is None:
            raise DitaError(root_map.path, root_map.root.sourceline, f"profile {self.name} excludes the root map itself")
        self.keys = self._key_space(kept_map)
        self._resolve_topicref_keys(kept_map)
        self._resolve_conrefs(kept_map, [])
        references = self._topic_references(kept_map)

        files: list[JobFile] = [JobFile(root_map, "ditamap", input=True)]
        outputs: dict[Path, etree._Element | None] = {}
        for file, resource_only in references.items():
            sf = docset.files[file]
            topic = self._resolved_topic(sf)
            outputs[file] = topic
            files.append(JobFile(sf, sf.format, resource_only=resource_only, kept=topic is not None))
        # Conref targets reached from the written files (transitively) are in the job too.
        index = 0
        while index < len(self.conref_targets):
            file = self.conref_targets[index]
            index += 1
            if file in outputs or file == root_map.file:
                continue
            sf = docset.files[file]
            topic = self._resolved_topic(sf)
            outputs[file] = topic
            files.append(
                JobFile(sf, sf.format, resource_only=True, conref_target=True, kept=topic is not None)
            )
        for jf in files:
            if jf.source.file in self.conref_targets:
                jf.conref_target = True
        self._warn_link_only_topics(outputs)

        job_dir.mkdir(parents=True, exist_ok=True)
        _write(job_dir / root_map.job_uri, kept_map)
        for file, topic in outputs.items():
            _write(job_dir / docset.files[file].job_uri, topic)
        job = Job(self.name, job_dir, files, self.warnings)
        _write_job_xml(job, docset)
        return job

    def _warn(self, el: etree._Element | None, feature: str, message: str) -> None:
        self.warnings.append(
            ExportWarning(path=self._path_of(el), line=_line_of(el), feature=feature, message=message)
        )

    def _path_of(self, el: etree._Element | None) -> str:
        sf = self.by_uri.get(el.get("xtrf")) if el is not None else None
        return sf.path if sf is not None else self.docset.root_map.path

    # ------------------------------------------------------------------------- maps

    def _inline(self, sf: SourceFile, stack: list[Path]) -> etree._Element:
        """A copy of the map with every submap inlined (recursively), hrefs relative to the root map."""
        root = copy.deepcopy(sf.root)
        for el in list(root.iter()):
            if not isinstance(el.tag, str) or el.getparent() is None and el is not root:
                continue
            cls = el.get("class") or ""
            # Root-map hrefs too: each then names its target's real path, percent-encoded, the
            # way the job directory holds it (symlinked and non-ASCII names included).
            self._rebase_map_element(el, sf)
            if classes.TOPICREF not in cls or el.get("href") is None or is_external(el):
                continue
            href = el.get("href")
            if reference_format(el, split_href(href)[0]) != "ditamap" or has_url_scheme(href):
                continue
            target = self._map_target(href)
            if target is None:
                continue
            if target in stack:
                raise DitaError(sf.path, _line_of(el), f"map reference cycle through '{href}'")
            sub = self.docset.files[target]
            submap = self._inline(sub, [*stack, target])
            el.getparent().replace(el, self._submap(el, submap, sub))
        return root

    def _map_target(self, href: str) -> Path | None:
        """The loaded file an href of the root map (relative to its directory) names."""
        path = split_href(href)[0]
        if not path:
            return None
        return (self.docset.map_dir / unquote(path)).resolve()

    def _rebase_map_element(self, el: etree._Element, sf: SourceFile) -> None:
        href = el.get("href")
        if href is None or is_external(el) or has_url_scheme(href):
            return
        path, fragment = split_href(href)
        if not path:
            return
        target = (sf.file.parent / unquote(path)).resolve()
        rel = quote(Path(os.path.relpath(target, self.docset.map_dir)).as_posix(), safe="/-._~")
        el.set("href", rel + (f"#{fragment}" if fragment is not None else ""))

    def _submap(self, mapref: etree._Element, submap: etree._Element, sub: SourceFile) -> etree._Element:
        wrapper = etree.Element("submap")
        for att, value in mapref.attrib.items():
            if att not in ("href", "format", "class"):
                wrapper.set(att, value)
        wrapper.set("class", classes.SUBMAP_CLASS)
        if classes.has_class(submap, classes.SUBJECT_SCHEME) or mapref.get("type") == "subjectScheme":
            # Inlined schemes are resource-only, as in DITA-OT: their subjects are not content.
            wrapper.set("processing-role", wrapper.get("processing-role") or "resource-only")
            wrapper.set("toc", wrapper.get("toc") or "no")
        wrapper.text = "\n"
        wrapper.tail = mapref.tail
        for child in list(submap):
            if not isinstance(child.tag, str):
                continue
            cls = child.get("class") or ""
            if " topic/title " in cls or classes.TOPICMETA in cls:
                continue  # the submap's own title and metadata stay with it
            if classes.TOPICREF in cls:
                for att in _SUBMAP_ROOT_ATTRIBUTES:
                    if child.get(att) is None and submap.get(att) is not None:
                        child.set(att, submap.get(att))
            wrapper.append(child)
        return wrapper

    def _filter(self, root: etree._Element, chains) -> etree._Element | None:
        """Remove every element whose own attributes exclude it (with its subtree); None if the root goes."""
        flt = self.filter
        if root.get("class") is not None and flt.excludes(root.attrib, chains):
            return None
        stack = [root]
        while stack:
            parent = stack.pop()
            for child in list(parent):
                if not isinstance(child.tag, str):
                    continue
                if child.get("class") is not None and flt.excludes(child.attrib, chains):
                    _remove(child)
                else:
                    stack.append(child)
        return root

    def _key_space(self, kept_map: etree._Element) -> dict[str, etree._Element]:
        keys: dict[str, etree._Element] = {}
        for el in kept_map.iter():
            if not isinstance(el.tag, str):
                continue
            for key in (el.get("keys") or "").split():
                keys.setdefault(key, el)  # the first surviving definition wins
        return keys

    def _resolve_topicref_keys(self, kept_map: etree._Element) -> None:
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or el.get("keyref") is None:
                continue
            if classes.TOPICREF not in (el.get("class") or ""):
                continue
            key = el.get("keyref").split("/")[0]
            definition = self.keys.get(key)
            if definition is None:
                if el.get("href") is None:
                    self._warn(el, "keyref", f"key '{key}' is not defined in profile {self.name}; the topicref has no target")
                continue
            if definition.get("href") is None:
                continue
            el.set("href", definition.get("href"))
            for att in ("format", "scope", "type"):
                if definition.get(att) is not None:
                    el.set(att, definition.get(att))

    def _topic_references(self, kept_map: etree._Element) -> dict[Path, bool]:
        """Files referenced by kept topicrefs -> True if every reference is resource-only."""
        found: dict[Path, bool] = {}
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or el.get("href") is None:
                continue
            if classes.TOPICREF not in (el.get("class") or "") or is_external(el):
                continue
            href = el.get("href")
            if has_url_scheme(href) or reference_format(el, split_href(href)[0]) != "dita":
                continue
            target = self._map_target(href)
            if target is None or target not in self.docset.files:
                continue
            resource_only = _processing_role(el) == "resource-only"
            found[target] = found.get(target, True) and resource_only
        return found

    # ------------------------------------------------------------------------- topics

    def _filtered(self, sf: SourceFile) -> etree._Element | None:
        """The file filtered by this profile (unresolved): the source of conref targets."""
        if sf.file not in self.filtered:
            root = copy.deepcopy(sf.root)
            self.filtered[sf.file] = self._filter(root, _file_chains(root))
        return self.filtered[sf.file]

    def _resolved_topic(self, sf: SourceFile) -> etree._Element | None:
        filtered = self._filtered(sf)
        if filtered is None:
            return None
        root = copy.deepcopy(filtered)
        self._resolve_conrefs(root, [])
        self._resolve_keyrefs(root, sf)
        self._rebase_pulled_hrefs(root, sf)
        self._pull_link_text(root, sf)
        return root

    def _resolve_conrefs(self, el: etree._Element, stack: list[tuple[str, str]]) -> None:
        for child in list(el):
            if isinstance(child.tag, str):
                self._resolve_element(child, stack)

    def _resolve_element(self, el: etree._Element, stack: list[tuple[str, str]]) -> None:
        if el.get("conaction") is not None:
            _remove(el)  # push source: not supported (warned when loaded)
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
        where = f"'{el.get('conref') or el.get('conkeyref')}'"
        if (target_sf.uri, fragment) in stack:
            self._warn(el, "conref", f"conref cycle through {where}; the element is dropped")
            _remove(el)
            return
        if target_sf.file != (source.file if source else None) and target_sf.file not in self.conref_targets:
            self.conref_targets.append(target_sf.file)
        filtered = self._filtered(target_sf)
        context_topic = _enclosing_topic_id(el)
        if fragment.startswith("./") and context_topic:
            fragment = f"{context_topic}/{fragment[2:]}"
        target = find_fragment(filtered, fragment) if filtered is not None else None
        if target is None:
            self._warn(
                el,
                "conref",
                f"conref target {where} is excluded in profile {self.name}; the referencing element is dropped",
            )
            _remove(el)
            return
        targets = [target]
        if el.get("conrefend") is not None:
            targets = self._conref_range(el, target, target_sf, filtered)
            if targets is None:
                return
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

    def _conref_target(self, el: etree._Element, source: SourceFile | None):
        """(target file, fragment) for @conkeyref (falling back to @conref) or @conref."""
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
            if el.get("conref") is None:
                self._warn(
                    el, "conkeyref", f"key '{key}' is not defined in profile {self.name}; the element keeps its own content"
                )
                return None
        path, fragment = split_href(el.get("conref"))
        if source is None:
            return None
        if path:
            file = (source.file.parent / unquote(path)).resolve()
            target = self.docset.files.get(file)
        else:
            target = source
        if target is None or not fragment:
            return None
        return target, fragment

    def _conref_range(self, el, start, target_sf: SourceFile, filtered):
        end_path, end_fragment = split_href(el.get("conrefend"))
        if end_path and (target_sf.file.parent / unquote(end_path)).resolve() != target_sf.file:
            end_fragment = None
        end = find_fragment(filtered, end_fragment) if end_fragment else None
        if end is None or end.getparent() is not start.getparent():
            self._warn(
                el,
                "conrefend",
                f"conref range end '{el.get('conrefend')}' is excluded or not a sibling of the start in "
                f"profile {self.name}; the referencing element is dropped",
            )
            _remove(el)
            return None
        siblings = [start]
        for sibling in start.itersiblings():
            if not isinstance(sibling.tag, str):
                continue
            siblings.append(sibling)
            if sibling is end:
                return siblings
        self._warn(el, "conrefend", "conref range end precedes its start; only the start is used")
        return [start]

    def _pulled(self, el: etree._Element, target: etree._Element, first: bool) -> etree._Element:
        """The element that replaces a conref: referencer's attributes win, target's content and
        debug attributes (@xtrf/@xtrc, as in DITA-OT)."""
        pulled = copy.deepcopy(target)
        if not first:
            return pulled
        result = etree.Element(el.tag)
        for att, value in target.attrib.items():
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

    def _resolve_keyrefs(self, root: etree._Element, sf: SourceFile) -> None:
        for el in list(root.iter()):
            if not isinstance(el.tag, str) or el.get("keyref") is None:
                continue
            cls = el.get("class") or ""
            key = el.get("keyref").split("/")[0]
            definition = self.keys.get(key)
            if definition is None:
                self._warn(
                    el, "keyref", f"key '{key}' is not defined in profile {self.name}; the element keeps its fallback content"
                )
                continue
            empty = len(el) == 0 and not (el.text or "").strip()
            if any(t in cls for t in _LINK_KEYREF) or " topic/image " in cls:
                href = definition.get("href")
                if href is not None and el.get("href") is None:
                    el.set("href", self._href_from_map(definition, href, sf))
                    for att in ("format", "scope"):
                        if definition.get(att) is not None and el.get(att) is None:
                            el.set(att, definition.get(att))
                if empty and " topic/image " not in cls:
                    _fill(el, _key_text(definition, keyword_first=False))
            elif empty and any(t in cls for t in _TEXT_KEYREF):
                text = _key_text(definition, keyword_first=True)
                if text is None:
                    self._warn(el, "keyref", f"key '{key}' has no text (keyword, linktext or navtitle) in profile {self.name}")
                else:
                    _fill(el, text)

    def _pull_link_text(self, root: etree._Element, sf: SourceFile) -> None:
        """Give an empty cross-reference its target's title, as DITA-OT's topicpull step does.

        Without it the chunk text reads "see ." where a published page reads "see <title>". The
        title comes from the target as this profile filters it.
        """
        for el in root.iter():
            if not isinstance(el.tag, str) or " topic/xref " not in (el.get("class") or ""):
                continue
            href = el.get("href")
            if not href or len(el) or (el.text or "").strip() or is_external(el) or has_url_scheme(href):
                continue
            path, fragment = split_href(href)
            target_sf = self.docset.get((sf.file.parent / unquote(path)).resolve()) if path else sf
            if target_sf is None or target_sf.format != "dita":
                continue
            target_root = self._filtered(target_sf)
            if target_root is None:
                continue
            target = find_fragment(target_root, fragment, el) if fragment else first_topic(target_root)
            title = next(
                (c for c in (target if target is not None else ()) if isinstance(c.tag, str)
                 and " topic/title " in (c.get("class") or "")),
                None,
            )
            if title is not None:
                # DITA-OT marks pulled link text with <?ditaot gentext?>; the stylesheet keeps it.
                marker = etree.ProcessingInstruction("ditaot", "gentext")
                marker.tail = " ".join("".join(title.itertext()).split())
                el.append(marker)

    def _href_from_map(self, definition: etree._Element, href: str, sf: SourceFile) -> str:
        if is_external(definition) or has_url_scheme(href):
            return href
        path, fragment = split_href(href)
        if not path:
            return href
        target = (self.docset.map_dir / unquote(path)).resolve()
        rel = quote(Path(os.path.relpath(target, sf.file.parent)).as_posix(), safe="/-._~")
        return rel + (f"#{fragment}" if fragment is not None else "")

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
            target = (origin.file.parent / unquote(path)).resolve()
            rel = quote(Path(os.path.relpath(target, sf.file.parent)).as_posix(), safe="/-._~")
            el.set("href", rel + (f"#{fragment}" if fragment is not None else ""))

    def _warn_link_only_topics(self, outputs: dict[Path, etree._Element | None]) -> None:
        seen: set[Path] = set()
        for file, root in outputs.items():
            if root is None:
                continue
            sf = self.docset.files[file]
            for el in root.iter():
                if not isinstance(el.tag, str) or el.get("href") is None:
                    continue
                cls = el.get("class") or ""
                if not any(t in cls for t in _LINK_KEYREF) or is_external(el) or has_url_scheme(el.get("href")):
                    continue
                path = split_href(el.get("href"))[0]
                if not path or reference_format(el, path) != "dita":
                    continue
                target = (sf.file.parent / unquote(path)).resolve()
                if target in outputs or target in seen:
                    continue
                seen.add(target)
                self._warn(
                    el,
                    "link-crawl",
                    f"'{path}' is reached only by a link in profile {self.name}; topics are exported only "
                    "through map references",
                )


# ----------------------------------------------------------------------------- helpers


def _line_of(el: etree._Element | None) -> int:
    if el is None:
        return 0
    xtrc = el.get("xtrc") or ""
    _, _, rest = xtrc.partition(";")
    line = rest.partition(":")[0]
    return int(line) if line.isdigit() else (el.sourceline or 0)


def _remove(el: etree._Element) -> None:
    """Remove an element and its subtree, keeping the text that follows it."""
    parent = el.getparent()
    if el.tail:
        prev = el.getprevious()
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _processing_role(el: etree._Element) -> str:
    """processing-role cascades: the nearest ancestor-or-self value, 'normal' by default."""
    for node in (el, *el.iterancestors()):
        role = node.get("processing-role")
        if role:
            return role
    return "normal"


def _file_chains(root: etree._Element):
    domains = root.get("domains")
    if domains is None and etree.QName(root).localname == "dita":
        domains = " ".join(c.get("domains") or "" for c in root if isinstance(c.tag, str))
    return props_chains(domains)


def _enclosing_topic_id(el: etree._Element) -> str | None:
    for anc in el.iterancestors():
        if classes.has_class(anc, classes.TOPIC):
            return anc.get("id")
    return None


def _key_text(definition: etree._Element, *, keyword_first: bool) -> etree._Element | None:
    """The element whose content a keyref copies: keywords/keyword, then linktext, then navtitle."""
    meta = next(
        (c for c in definition if isinstance(c.tag, str) and classes.TOPICMETA in (c.get("class") or "")), None
    )
    if meta is None:
        return None
    order = [" topic/keyword ", " topic/linktext ", " topic/navtitle "]
    if not keyword_first:
        order = order[1:] + order[:1]
    for token in order:
        for c in meta.iter():
            if not isinstance(c.tag, str) or token not in (c.get("class") or ""):
                continue
            if token == " topic/keyword " and " topic/keywords " not in (c.getparent().get("class") or ""):
                continue
            return c
    return None


def _fill(el: etree._Element, source: etree._Element | None) -> None:
    if source is None:
        return
    pulled = copy.deepcopy(source)
    el.text = pulled.text
    for child in list(pulled):
        el.append(child)


def _write(path: Path, root: etree._Element | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if root is None:
        path.write_bytes(b"")  # topic root excluded: a file with no topic root is not kept
        return
    etree.cleanup_namespaces(root, top_nsmap={"valid": VALID_NS})
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n")


def _write_job_xml(job: Job, docset: DocSet) -> None:
    root = etree.Element("job")
    root.text = "\n  "
    for name, value in (
        ("user.input.file", docset.root_map.job_uri),
        ("InputMapDir.uri", file_uri(docset.map_dir, directory=True)),
        ("valid.profile", job.name),
    ):
        prop = etree.SubElement(root, "property", name=name)
        etree.SubElement(prop, "string").text = value
        prop.tail = "\n  "
    files = etree.SubElement(root, "files")
    files.text = "\n    "
    files.tail = "\n"
    for jf in sorted(job.files, key=lambda f: f.source.job_uri):
        src = file_uri(jf.source.file)
        el = etree.SubElement(
            files,
            "file",
            src=src,
            uri=jf.source.job_uri,
            path=jf.source.job_uri,
            result=src,
            format=jf.format,
        )
        if jf.input:
            el.set("input", "true")
        if jf.resource_only:
            el.set("resource-only", "true")
        if jf.conref_target:
            el.set("conref-target", "true")
        if not jf.kept:
            el.set("valid-excluded", "true")
        el.tail = "\n    "
    if len(files):
        files[-1].tail = "\n  "
    job.job_file.parent.mkdir(parents=True, exist_ok=True)
    job.job_file.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n")
