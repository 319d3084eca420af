"""Markdown topics the way DITA-OT 4.x reads them: the `markdown`, `md`, `mdita` and `wikidocs` formats.

DITA-OT parses a reference whose @format names one of these with the LwDITA parser it bundles, and
every later stage sees a DITA topic: the job lists the file as format dita, the map's reference says
format="dita". The own preprocess does the same with this module, so a doc set that keeps part of its
text in Markdown (a reference kept as wiki pages) exports that text without DITA-OT too. The mapping
follows the formats' documentation and what DITA-OT 4.2.4 writes for them:

- the document is one topic: its title is the first level-1 heading, or, when the document does not
  start with one, the front matter's `title`, else the file name ("Block-styles.md": "Block styles");
- `markdown`, `md`, `wikidocs`: every later heading opens a topic nested by its level, except one
  classed `section` or `example` ({.section}), which opens that element; `mdita`: a heading below
  level 1 opens a section;
- `mdita` and `wikidocs`: a topic's first paragraph is its short description;
- header attributes {#id .class name=value} give @id, @outputclass and other attributes; a topic or
  section without an id gets one from its title (lower case, spaces as hyphens, other punctuation
  dropped); a section heading no deeper than its topic's title is an error (MarkdownStructureError);
- paragraphs, lists, fenced and indented code (its language as @outputclass), tables (the header row
  as thead), block quotes and `!!! type "title"` admonitions (notes, the title their first
  paragraph); inline code (teletype in MDITA), emphasis, strong emphasis, links, images and hard
  line breaks (`<?linebreak?>`). Raw HTML is left out.

Every element carries its DITA @class (the built-in DITA 1.3 table, valid.dita.classes) and the line of the Markdown file it starts on, so messages
about the topic name the file and line the writer wrote. Pure: text in, element tree out.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lxml import etree
from markdown_it import MarkdownIt
from markdown_it.tree import SyntaxTreeNode
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from valid.dita.classes import default_class

# @format values DITA-OT parses as Markdown, and the flavour each one is read as.
FORMATS = {"markdown": "markdown", "md": "markdown", "mdita": "mdita", "wikidocs": "wikidocs"}

_NOTE_TYPES = frozenset(
    "note tip fastpath restriction important remember attention caution notice danger warning trouble".split()
)
_HEADER_ATTRIBUTES = re.compile(r"\s*\{([^{}]*)\}\s*$")
_ATTRIBUTE = re.compile(r"""#([^\s#.]+)|\.([^\s#.]+)|([\w-]+)=(?:"([^"]*)"|(\S+))""")
_FRONT_TITLE = re.compile(r"^title:\s*['\"]?(.*?)['\"]?\s*$", re.MULTILINE)
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_SUPERSCRIPT = re.compile(r"\^([^^ \t\n]+)\^")  # ^text^, no space inside

_PARSER = (
    MarkdownIt("commonmark").enable("table").use(front_matter_plugin).use(admon_plugin).use(footnote_plugin)
)


class MarkdownStructureError(ValueError):
    """A heading the formats cannot place (a section no deeper than the topic it would be in):
    DITA-OT refuses the file (DOTJ013E) and builds without it."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def is_markdown(format_value: str | None) -> bool:
    return (format_value or "").lower() in FORMATS


def to_topic(text: str, file_name: str, format_value: str) -> etree._Element:
    """The DITA topic DITA-OT makes of a Markdown file (`file_name`: its name, for a missing title)."""
    flavour = FORMATS[format_value.lower()]
    nodes = list(SyntaxTreeNode(_PARSER.parse(text)).children)
    front = nodes.pop(0).content if nodes and nodes[0].type == "front_matter" else ""
    notes = [n for n in nodes if n.type == "footnote_block"]
    nodes = [n for n in nodes if n.type != "footnote_block"]
    builder = _Builder(flavour, {f.meta["id"]: f for block in notes for f in block.children})
    if nodes and nodes[0].type == "heading" and nodes[0].tag == "h1":
        root = builder.topic(nodes.pop(0))
    else:
        found = _FRONT_TITLE.search(front)
        title = found.group(1) if found and found.group(1) else re.sub(r"[-_]+", " ", PurePosixPath(file_name).stem)
        root = builder.titled_topic(title, {}, line=1)
    builder.fill(root, nodes)
    return root


class _Builder:
    """One document's elements: the ids given so far, the flavour's rules."""

    def __init__(self, flavour: str, footnotes: dict[int, SyntaxTreeNode]):
        self.flavour = flavour
        self.footnotes = footnotes  # a footnote's text goes where it is referenced ([^1])
        self.ids: set[str] = set()

    def fill(self, root: etree._Element, nodes: list[SyntaxTreeNode]) -> None:
        """The blocks after the root's title: nested topics and sections by heading, the rest in
        the open topic's (or section's) body."""
        topics = [(1, root)]  # the open topics, by heading level
        container = None  # the section a block goes into, or None for the topic's body
        for node in nodes:
            if node.type == "heading":
                level = int(node.tag[1:])
                text, attributes = _heading(node)
                kind = _class_kind(attributes)
                if kind or self.flavour == "mdita" and level > 1:
                    if level <= topics[-1][0]:
                        raise MarkdownStructureError(_line(node), (
                            f"a level-{level} section heading must be deeper than its topic's "
                            f"level-{topics[-1][0]} title"
                        ))
                    attributes.setdefault("id", _id_from(text))
                    container = self._element(_body(topics[-1][1]), kind or "section", node, attributes)
                    self._inline(self._element(container, "title", node), node.children[0], text)
                    continue
                while len(topics) > 1 and topics[-1][0] >= level:
                    topics.pop()
                topic = self.titled_topic(text, attributes, _line(node), node.children[0])
                topics[-1][1].append(topic)
                topics.append((level, topic))
                container = None
                continue
            topic = topics[-1][1]
            if container is None and self._opens_with_shortdesc(topic, node):
                shortdesc = self._element(topic, "shortdesc", node)
                shortdesc.sourceline = topic.sourceline  # DITA-OT's parser places it at the title
                self._inline(shortdesc, node.children[0])
                continue
            self._block(container if container is not None else _body(topic), node)

    def topic(self, heading: SyntaxTreeNode) -> etree._Element:
        text, attributes = _heading(heading)
        return self.titled_topic(text, attributes, _line(heading), heading.children[0])

    def titled_topic(self, title: str, attributes: dict, line: int, inline: SyntaxTreeNode | None = None):
        topic = etree.Element("topic", {"class": default_class("topic")})
        topic.sourceline = line
        given = attributes.pop("id", None)
        topic.set("id", self._unique(given or _id_from(title)))
        for name, value in attributes.items():
            topic.set(name, value)
        title_el = etree.SubElement(topic, "title", {"class": default_class("title")})
        title_el.sourceline = line
        if inline is None:
            title_el.text = title
        else:
            self._inline(title_el, inline, title)
        return topic

    def _opens_with_shortdesc(self, topic: etree._Element, node: SyntaxTreeNode) -> bool:
        if self.flavour == "markdown" or node.type != "paragraph":
            return False
        return len(topic) == 1  # the title alone so far

    def _unique(self, wanted: str) -> str:
        found, n = wanted or "topic", 1
        while found in self.ids:
            n += 1
            found = f"{wanted}-{n}"
        self.ids.add(found)
        return found

    def _element(self, parent, name: str, node: SyntaxTreeNode | None = None, attributes=None) -> etree._Element:
        el = etree.SubElement(parent, name, {"class": default_class(name)})
        el.sourceline = _line(node) if node is not None and node.map else parent.sourceline
        for key, value in (attributes or {}).items():
            el.set(key, value)
        return el

    # -- blocks ------------------------------------------------------------------------------------
    def _block(self, parent: etree._Element, node: SyntaxTreeNode) -> None:
        kind = node.type
        if kind == "paragraph":
            self._inline(self._element(parent, "p", node), node.children[0])
        elif kind in ("bullet_list", "ordered_list"):
            listed = self._element(parent, "ul" if kind == "bullet_list" else "ol", node)
            for item in node.children:
                self._item(self._element(listed, "li", item), item)
        elif kind in ("fence", "code_block"):
            code = self._element(parent, "codeblock", node)
            code.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
            language = (node.info or "").split()[0] if node.info else ""
            if language:
                code.set("outputclass", language)
            code.text = node.content.rstrip("\n")
        elif kind == "table":
            self._table(parent, node)
        elif kind == "blockquote":
            quote = self._element(parent, "lq", node)
            for child in node.children:
                self._block(quote, child)
        elif kind == "admonition":
            self._note(parent, node)
        # Raw HTML, thematic breaks and anything else the formats do not map are left out.

    def _item(self, li: etree._Element, item: SyntaxTreeNode) -> None:
        children = list(item.children)
        if children and children[0].type == "paragraph" and children[0].hidden:
            # A tight list: the item's text sits in the item itself, as DITA-OT writes it.
            self._inline(li, children.pop(0).children[0])
        for child in children:
            self._block(li, child)

    def _note(self, parent: etree._Element, node: SyntaxTreeNode) -> None:
        kind = (node.meta or {}).get("tag", "note").lower()
        attributes = {"type": kind} if kind in _NOTE_TYPES else {"type": "other", "othertype": kind}
        note = self._element(parent, "note", node, attributes)
        titled = '"' in (node.info or "")  # `!!! tip "Sizing"`: the title is the note's first paragraph
        for child in node.children:
            if child.type != "admonition_title":
                self._block(note, child)
            elif titled:
                self._inline(self._element(note, "p", child), child.children[0])

    def _table(self, parent: etree._Element, node: SyntaxTreeNode) -> None:
        table = self._element(parent, "table", node)
        sections = [(s.type, [list(row.children) for row in s.children]) for s in node.children]
        columns = max((len(cells) for _, rows in sections for cells in rows), default=0)
        group = self._element(table, "tgroup", node, {"cols": str(columns)})
        for n in range(1, columns + 1):
            self._element(group, "colspec", node, {"colname": f"col{n}", "colnum": str(n)})
        for kind, rows in sections:
            part = self._element(group, "thead" if kind == "thead" else "tbody", node)
            for cells in rows:
                row = self._element(part, "row", node)
                for n, cell in enumerate(cells, 1):
                    entry = self._element(row, "entry", node, {"colname": f"col{n}"})
                    if cell.children:
                        self._inline(entry, cell.children[0])

    # -- inline --------------------------------------------------------------------------------------
    def _inline(self, parent: etree._Element, inline: SyntaxTreeNode, text: str | None = None) -> None:
        """The inline content of a block into `parent`; `text`: a heading's text without its
        attributes, written as plain text."""
        if text is not None and _HEADER_ATTRIBUTES.search(_plain(inline)):
            _append_text(parent, text)
            return
        for child in inline.children:
            self._span(parent, child)

    def _span(self, parent: etree._Element, node: SyntaxTreeNode) -> None:
        kind = node.type
        if kind == "text":
            self._text(parent, node.content)
        elif kind == "softbreak":
            _append_text(parent, "\n")
        elif kind == "hardbreak":
            parent.append(etree.ProcessingInstruction("linebreak"))
        elif kind == "code_inline":
            # MDITA has no programming domain: its code span is teletype text.
            self._element(parent, "tt" if self.flavour == "mdita" else "codeph").text = node.content
        elif kind in ("strong", "em"):
            styled = self._element(parent, "b" if kind == "strong" else "i")
            for child in node.children:
                self._span(styled, child)
        elif kind == "link":
            href = str(node.attrs.get("href", ""))
            link = self._element(parent, "xref", attributes={"href": href})
            if _URL.match(href):
                link.attrib.update({"scope": "external", "format": "html"})
            for child in node.children:
                self._span(link, child)
        elif kind == "footnote_ref":
            note = self.footnotes.get(node.meta["id"])
            fn = self._element(parent, "fn")
            for paragraph in note.children if note is not None else []:
                if paragraph.type == "paragraph":
                    self._inline(fn, paragraph.children[0])
        elif kind == "image":
            image = self._element(parent, "image", attributes={"href": str(node.attrs.get("src", ""))})
            alt = _plain(node)
            if alt:
                self._element(image, "alt").text = alt
        # Raw inline HTML is left out.


    def _text(self, parent: etree._Element, text: str) -> None:
        """Text, with ^superscript^ spans as DITA-OT's Markdown parser reads them."""
        at = 0
        for found in _SUPERSCRIPT.finditer(text):
            _append_text(parent, text[at : found.start()])
            self._element(parent, "sup").text = found.group(1)
            at = found.end()
        _append_text(parent, text[at:])


def _heading(node: SyntaxTreeNode) -> tuple[str, dict]:
    """A heading's text and its header attributes (#id, .class as outputclass, name=value)."""
    text = _plain(node.children[0])
    found = _HEADER_ATTRIBUTES.search(text)
    if not found:
        return text, {}
    attributes: dict[str, str] = {}
    classes = []
    for given_id, given_class, name, quoted, bare in _ATTRIBUTE.findall(found.group(1)):
        if given_id:
            attributes["id"] = given_id
        elif given_class:
            classes.append(given_class)
        elif name:
            attributes[name] = quoted or bare
    if classes:
        attributes["outputclass"] = " ".join(classes)
    return text[: found.start()].strip(), attributes


def _class_kind(attributes: dict) -> str | None:
    """`section` or `example` when the heading is classed so (that class is not kept as outputclass)."""
    classes = attributes.get("outputclass", "").split()
    kind = next((c for c in classes if c in ("section", "example")), None)
    if kind:
        rest = [c for c in classes if c != kind]
        attributes.pop("outputclass")
        if rest:
            attributes["outputclass"] = " ".join(rest)
    return kind


def _plain(node: SyntaxTreeNode) -> str:
    """The text of an inline node and its descendants."""
    if node.type in ("text", "code_inline"):
        return node.content
    if node.type in ("softbreak", "hardbreak"):
        return " "
    return "".join(_plain(child) for child in node.children)


def _id_from(title: str) -> str:
    """As DITA-OT's parser makes it: lower case, spaces as hyphens, other punctuation dropped."""
    return re.sub(r"[^\w-]", "", re.sub(r"\s+", "-", title.strip().lower()))


def _line(node: SyntaxTreeNode) -> int:
    return node.map[0] + 1 if node.map else 1


def _body(topic: etree._Element) -> etree._Element:
    """The topic's body, made after its title and short description when it has none yet."""
    body = topic.find("body")
    if body is None:
        body = etree.Element("body", {"class": default_class("body")})
        body.sourceline = topic.sourceline
        before = [child for child in topic if child.tag in ("title", "shortdesc")]
        topic.insert(len(before), body)
    return body


def _append_text(parent: etree._Element, text: str) -> None:
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
