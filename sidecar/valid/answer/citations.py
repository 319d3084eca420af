"""Citations readers can follow: the cited topic's title path, and the page the team publishes.

A step cites a chunk id, `<path>#<topic id>/<local>[~<variant>]` (docs/architecture.md#chunk-identity).
Readers see the title path instead (the chunk's breadcrumbs without the map title, which the page
already names). Where the team publishes its builds, `published_url` is a template over

    {build}     the profile name the page is for (the DITAVAL build)
    {path}      the topic's output path: its source path with the extension .html (DITA-OT's html5
                default), e.g. topics/install.html
    {topic}     the topic id
    {element}   the cited element's own id ('' when it has none)
    {fragment}  the element's id in DITA-OT's HTML5 output: <topic id>__<element id>, or the topic id
                when the element has no id of its own

for example "https://docs.example.com/{build}/{path}#{fragment}". Pure functions and a frozen model.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, field_validator

from valid.answer.models import Comparison, ComparisonCell, GenerationAnswer

FIELDS = ("build", "path", "topic", "element", "fragment")
# A local part made by the exporter for an element without @id: "<qname>-<count>", or "body".
_GENERATED = re.compile(r"^(?:[A-Za-z][\w.]*-[0-9]+|body)$")
_EXTENSION = re.compile(r"\.(?:dita|xml)$", re.IGNORECASE)


def title_path(breadcrumbs: Sequence[str]) -> list[str]:
    """The breadcrumbs a reader needs: without the map title (the first), unless that is all there is."""
    crumbs = [c for c in breadcrumbs if c.strip()]
    return crumbs[1:] if len(crumbs) > 1 else crumbs


def cite_parts(chunk_id: str) -> dict[str, str]:
    """The template's fields (all but build) for one chunk id."""
    path, _, anchor = chunk_id.partition("#")
    topic, _, local = anchor.partition("/")
    local = local.split("~", 1)[0]
    # A conref'd element's local part names its own file ("<file>:<id>"): its id is its own still.
    own = local.rpartition(":")[2]
    element = "" if not own or _GENERATED.match(own) else own
    return {
        "path": _EXTENSION.sub(".html", path),
        "topic": topic,
        "element": element,
        "fragment": f"{topic}__{element}" if element else topic,
    }


class PublishedPages(BaseModel):
    """Where the team publishes each build: `template` over FIELDS (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    template: str

    @field_validator("template")
    @classmethod
    def _known_fields(cls, template: str) -> str:
        if not re.match(r"^(?:https?://|/)", template):
            raise ValueError(f"published_url must start with https://, http:// or /: {template[:80]!r}")
        try:
            names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
        except ValueError as err:
            raise ValueError(f"published_url is not a template: {err}") from None
        unknown = sorted(names - set(FIELDS))
        if unknown:
            raise ValueError(f"published_url names {{{unknown[0]}}}; it may use {', '.join('{%s}' % f for f in FIELDS)}")
        return template

    def url(self, build: str, chunk_id: str) -> str:
        parts = cite_parts(chunk_id)
        values = {
            "build": quote(build, safe=""),
            "path": quote(parts["path"], safe="/"),
            "topic": quote(parts["topic"], safe=""),
            "element": quote(parts["element"], safe=""),
            "fragment": quote(parts["fragment"], safe=""),
        }
        return self.template.format_map(values)

    def pages(self, builds: Sequence[str], chunk_id: str) -> dict[str, str]:
        return {build: self.url(build, chunk_id) for build in builds}


def with_pages(answers: Sequence[GenerationAnswer], published: PublishedPages | None) -> list[GenerationAnswer]:
    """Each step with its published page for every generation its answer is for (unchanged without
    a `published_url`)."""
    if published is None:
        return list(answers)
    return [
        a.model_copy(update={"steps": [s.model_copy(update={"pages": published.pages(a.generations, s.cite)})
                                       for s in a.steps]})
        for a in answers
    ]


def with_cell_pages(comparison: Comparison | None, published: PublishedPages | None) -> Comparison | None:
    """Each cited cell of a comparison with the published page of its own generation."""
    if comparison is None or published is None:
        return comparison

    def paged(cell: ComparisonCell) -> ComparisonCell:
        return cell.model_copy(update={"page": published.url(cell.generation, cell.cite)}) if cell.cite else cell

    rows = [row.model_copy(update={"cells": [paged(c) for c in row.cells]}) for row in comparison.rows]
    return comparison.model_copy(update={"rows": rows, "statements": [paged(c) for c in comparison.statements]})


def crumbs_by_chunk(chunks: Sequence) -> Mapping[str, list[str]]:
    """chunk id -> title path, for the chunks an answer was written from."""
    return {c.id: title_path(c.breadcrumbs) for c in chunks}
