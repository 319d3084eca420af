"""An emulation of DITA-OT 4.x `preprocess2` for one profile: a job directory the stylesheet reads.

The order is DITA-OT's (filter-stage=early), because the order decides scope:

1. inline submaps into the root map (mapref and topicref format="ditamap"): a `submap` wrapper
   carries the mapref's attributes; the submap root's profiling attributes are copied onto its
   first-level topicrefs that lack their own (DITA-OT's maprefImpl, dita-filtering.md §B.3);
2. filter the map: an element whose own attributes exclude it goes, with its subtree;
3. branch filtering (`ditavalref`, valid.dita.branches): split branches, filter each by its
   DITAVALs on top of the profile's, and name the branch copies of topics; `@copy-to` names a copy
   of its topic (ignored, with a warning, when it names a file that exists, as in DITA-OT);
4. build the key spaces from the filtered map (key scopes, valid.dita.keyspace) and resolve
   topicref keyrefs to hrefs in each topicref's scope; a topic with key references that is
   referenced from several key scopes is resolved once per scope, the second and later under
   `<name>-<n>.<ext>` (DITA-OT's KeyrefModule);
5. reach topics only through kept references (no link crawl);
6. filter each topic the same way (a branch copy also by its branch DITAVALs), then resolve
   conref/conkeyref (the target filtered in its own
   file by its own path; a target that is gone drops the referencing element, as DITA-OT does) and
   keyref text in the topic's key scope;
7. write the files and `.job.xml` (docs/architecture.md, "The job directory").
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

from lxml import etree

from valid.contracts import ExportWarning
from valid.dita import branches, classes, conrefpush, keyspace
from valid.dita.ditaval import Ditaval, Filter, props_chains, read_ditaval
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
from valid.errors import DitaError, DitavalError

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
    uri: str = ""  # where the file is in the job directory; a copy's own name, else the source's
    path: Path | None = None  # the file's name in the doc set (a copy's generated name)

    def __post_init__(self) -> None:
        self.uri = self.uri or self.source.job_uri
        self.path = self.path or self.source.file


@dataclass(frozen=True)
class Output:
    """A topic file of the job: its source and the branch filters applied on top of the profile's."""

    source: SourceFile
    filters: tuple[Filter, ...] = ()


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
        self.filtered: dict[tuple[Path, tuple[Filter, ...]], etree._Element | None] = {}
        self.keys: dict[str, etree._Element] = {}
        self.conref_targets: list[Path] = []
        self.outputs: dict[Path, Output] = {}  # named copies and branch-filtered files
        self.scopes: dict[Path, keyspace.KeyScope] = {}  # the key scope each output resolves in
        self.branch_filters: dict[Path, Filter] = {}

    # ------------------------------------------------------------------------- driver

    def run(self, job_dir: Path) -> Job:
        docset = self.docset
        root_map = docset.root_map
        resolved = self._inline(root_map, [root_map.file])
        chains = props_chains(resolved.get("domains"))
        kept_map = self._filter(resolved, chains)
        if kept_map is None:
            raise DitaError(root_map.path, root_map.root.sourceline, f"profile {self.name} excludes the root map itself")
        self._ignore_copy_to_existing(kept_map)
        if branches.has_branches(kept_map):
            self._check_root_ditavalrefs(kept_map)
            branches.apply(kept_map, chains, self._branch_filter)
        self._name_outputs(kept_map)
        self.root_scope = keyspace.build(kept_map)
        self._resolve_topicref_keys(kept_map)
        self._scope_copies(kept_map)
        self.keys = self.root_scope.keys
        self._resolve_conrefs(kept_map, [])
        references = self._topic_references(kept_map)
        self._push(references)

        files: list[JobFile] = [JobFile(root_map, "ditamap", input=True)]
        outputs: dict[Path, etree._Element | None] = {}
        self.written: dict[Path, SourceFile] = {}
        for file, resource_only in references.items():
            out = self._output(file)
            topic = self._resolved_topic(out, file)
            outputs[file] = topic
            self.written[file] = out.source
            files.append(
                JobFile(out.source, out.source.format, resource_only=resource_only, kept=topic is not None,
                        uri=self._job_uri(file), path=file)
            )
        # Conref targets reached from the written files (transitively) are in the job too.
        index = 0
        while index < len(self.conref_targets):
            file = self.conref_targets[index]
            index += 1
            if file in outputs or file == root_map.file:
                continue
            sf = docset.files[file]
            topic = self._resolved_topic(Output(sf), file)
            outputs[file] = topic
            self.written[file] = sf
            files.append(
                JobFile(sf, sf.format, resource_only=True, conref_target=True, kept=topic is not None)
            )
        for jf in files:
            if jf.path in self.conref_targets:
                jf.conref_target = True
        self._warn_link_only_topics(outputs)

        job_dir.mkdir(parents=True, exist_ok=True)
        _write(job_dir / root_map.job_uri, kept_map)
        for file, topic in outputs.items():
            _write(job_dir / self._job_uri(file), topic)
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
            if sf is not self.docset.root_map:
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
        for att in ("href", "copy-to"):
            href = el.get(att)
            if href is None or is_external(el) or has_url_scheme(href):
                continue
            path, fragment = split_href(href)
            if not path:
                continue
            target = (sf.file.parent / unquote(path)).resolve()
            rel = quote(Path(os.path.relpath(target, self.docset.map_dir)).as_posix(), safe="/-._~")
            el.set(att, rel + (f"#{fragment}" if fragment is not None else ""))

    def _submap(self, mapref: etree._Element, submap: etree._Element, sub: SourceFile) -> etree._Element:
        wrapper = etree.Element("submap")
        for att, value in mapref.attrib.items():
            if att not in ("href", "format", "class"):
                wrapper.set(att, value)
        wrapper.set("class", classes.SUBMAP_CLASS)
        # A keyscope on the referenced map's root scopes the submap too (DITA 1.3 key scopes).
        names = dict.fromkeys([*(mapref.get("keyscope") or "").split(), *(submap.get("keyscope") or "").split()])
        if names:
            wrapper.set("keyscope", " ".join(names))
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

    # ------------------------------------------------------------------------- copies, branches, key scopes

    def _ignore_copy_to_existing(self, kept_map: etree._Element) -> None:
        """DITA-OT ignores a @copy-to that names an existing file (DOTX064W): the topic keeps its name."""
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or not el.get("copy-to"):
                continue
            copy_to = el.get("copy-to")
            target = self._map_target(copy_to) if not has_url_scheme(copy_to) else None
            if target is not None and (target in self.docset.files or target.exists()):
                self._warn(el, "copy-to", f"copy-to '{copy_to}' names an existing file; the attribute is ignored")
                del el.attrib["copy-to"]

    def _check_root_ditavalrefs(self, kept_map: etree._Element) -> None:
        refs = [c for c in kept_map if isinstance(c.tag, str) and branches.DITAVALREF in (c.get("class") or "")]
        if len(refs) > 1:
            raise DitaError(
                self._path_of(refs[1]), _line_of(refs[1]),
                "a root map holds at most one <ditavalref>; put several in topicgroups (one branch each)",
            )

    def _branch_filter(self, ref: etree._Element) -> Filter:
        """The filter of a ditavalref's DITAVAL (no subject-scheme refinement, as in DITA-OT)."""
        href = ref.get("href") or ""
        path = self._map_target(href) if href and not has_url_scheme(href) else None
        if path is None:
            raise DitaError(self._path_of(ref), _line_of(ref), "<ditavalref> has no local @href to a DITAVAL file")
        if path not in self.branch_filters:
            if not path.is_relative_to(self.docset.root_dir):
                raise DitaError(
                    self._path_of(ref), _line_of(ref),
                    f"ditavalref '{href}' points outside the doc-set root; widen it with --root if this is intended",
                )
            try:
                ditaval = read_ditaval(path, display=self.docset.display(path))
            except DitavalError as err:
                raise DitaError(self._path_of(ref), _line_of(ref), f"ditavalref '{href}': {err}") from None
            self.branch_filters[path] = Filter(ditaval)
        return self.branch_filters[path]

    def _name_outputs(self, kept_map: etree._Element) -> None:
        """Point renamed topicrefs (branch copies, @copy-to) at their copies and record what each
        copy is: its source topic and the branch filters on top of the profile's."""
        for el in kept_map.iter():
            if not isinstance(el.tag, str) or classes.TOPICREF not in (el.get("class") or ""):
                continue
            name = el.attrib.pop(branches.COPY_TO, None) or el.attrib.pop("copy-to", None)
            el.attrib.pop("copy-to", None)
            if branches.DITAVALREF in (el.get("class") or ""):
                continue
            href = el.get("href")
            if not href or is_external(el) or has_url_scheme(href) or reference_format(el, split_href(href)[0]) != "dita":
                continue
            source = self.docset.files.get(self._map_target(href))
            if source is None:
                continue
            filters = tuple(self._branch_filter(r) for r in branches.branch_ditavalrefs(el))
            if name:
                fragment = split_href(href)[1]
                self.outputs.setdefault(self._map_target(name), Output(source, filters))
                el.set("href", split_href(name)[0] + (f"#{fragment}" if fragment is not None else ""))
            elif filters:
                self.outputs.setdefault(source.file, Output(source, filters))

    def _scope_copies(self, kept_map: etree._Element) -> None:
        """Give every referenced topic the key scope of its first reference; a topic with key
        references referenced from another scope is resolved again as `<name>-<n>.<ext>`."""
        usage: dict[Path, int] = {}
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
            if not _has_key_references(self._output(path).source.root):
                self.scopes.setdefault(path, scope)
                continue
            task = (id(scope), path)
            if usage.get(path, 0) and task in named:
                new = named[task]
            else:
                used = usage.get(path, 0) + (0 if _processing_role(el) == "resource-only" else 1)
                usage[path] = used
                new = self._unused(path.with_name(f"{path.stem}-{used - 1}{path.suffix}")) if used > 1 else path
                if new != path:
                    self.outputs[new] = self._output(path)
                named[task] = new
            self.scopes.setdefault(new, scope)
            if new != path:
                fragment = split_href(href)[1]
                el.set("href", self._map_href(new) + (f"#{fragment}" if fragment is not None else ""))

    def _unused(self, path: Path) -> Path:
        while path in self.outputs or path in self.docset.files or path.exists():
            path = path.with_name(f"{path.stem}-1{path.suffix}")
        return path

    def _output(self, path: Path) -> Output:
        return self.outputs.get(path) or Output(self.docset.files[path])

    def _job_uri(self, path: Path) -> str:
        return Path(os.path.relpath(path, self.docset.root_dir)).as_posix()

    def _map_href(self, path: Path) -> str:
        return quote(Path(os.path.relpath(path, self.docset.map_dir)).as_posix(), safe="/-._~")

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
                    _remove(child)
                else:
                    stack.append(child)
        return root

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
            if target is None or (target not in self.docset.files and target not in self.outputs):
                continue
            resource_only = _processing_role(el) == "resource-only"
            found[target] = found.get(target, True) and resource_only
        return found

    # ------------------------------------------------------------------------- topics

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
            warn = lambda el, message: self._warn(el, "conaction", message)  # noqa: E731
            for push in conrefpush.collect(filtered, warn):
                path, fragment = split_href(push.target)
                target_sf = self.docset.files.get((sf.file.parent / unquote(path)).resolve()) if path else sf
                target_root = self._filtered(target_sf) if target_sf is not None and fragment else None
                target = find_fragment(target_root, fragment) if target_root is not None else None
                if target is None or target.getparent() is None:
                    warn(push.origin, f"conref push target '{push.target}' is missing or excluded in profile {self.name}; nothing is pushed")
                    continue
                key = (target_sf.file, fragment)
                if conrefpush.apply(push, target, key in replaced, warn):
                    replaced.add(key)

    def _filtered(self, sf: SourceFile, extra: tuple[Filter, ...] = ()) -> etree._Element | None:
        """The file filtered by this profile (and branch filters; unresolved): the source of conref targets."""
        key = (sf.file, extra)
        if key not in self.filtered:
            root = copy.deepcopy(sf.root)
            self.filtered[key] = self._filter(root, _file_chains(root), extra)
        return self.filtered[key]

    def _resolved_topic(self, out: Output, path: Path) -> etree._Element | None:
        sf = out.source
        filtered = self._filtered(sf, out.filters)
        if filtered is None:
            return None
        self.keys = self.scopes.get(path, self.root_scope).keys
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
            # A push element outside the pushing topics (e.g. in a conref target): as conrefImpl,
            # a mark goes, anything else stays without its push attributes.
            if el.get("conaction").strip().lower() == "mark":
                _remove(el)
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
            sf = self.written[file]
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


def _conrefend_id(conrefend: str) -> str:
    """The element id a @conrefend names (conrefImpl.xsl): after 'topic/', else after '#'."""
    fragment = conrefend.partition("#")[2] if "#" in conrefend else conrefend
    return fragment.rpartition("/")[2] if "/" in fragment else fragment


def _has_key_references(root: etree._Element) -> bool:
    return any(
        isinstance(el.tag, str) and (el.get("keyref") is not None or el.get("conkeyref") is not None)
        for el in root.iter()
    )


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
    for jf in sorted(job.files, key=lambda f: f.uri):
        # A copy (branch, copy-to, key scope) keeps its source's @src and has its own @result, as
        # in DITA-OT's job: the stylesheet names the copy's chunks after @result.
        el = etree.SubElement(
            files,
            "file",
            src=file_uri(jf.source.file),
            uri=jf.uri,
            path=jf.uri,
            result=file_uri(jf.path),
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
