"""The export contract: one header line, then one line per chunk (JSON lines).

These pydantic models are the contract between the XSLT export (standalone or inside DITA-OT)
and every later stage (index, audit, answer). `docs/export.schema.json` is generated from them
(`valid schema`), and every exported line is validated against them before it is written.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1.0"

ChunkType = Literal[
    "section",  # a topic/section (or a specialization such as task/prereq, reference/refsyn)
    "example",  # a topic/example
    "table",  # a topic/table or topic/simpletable (properties, choicetable)
    "steps",  # a task/steps or task/steps-unordered group
    "body",  # the rest of a topic body: everything not in another chunk
]

ScopeOrigin = Literal[
    "cascaded",  # scope decided above the element: map branches, topicrefs, the topic root
    "element",  # scope narrowed by profiling on an element inside the topic
    "shared",  # in scope for every profile
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SourceLocation(_Strict):
    path: str = Field(description="Source file, relative to the root map's directory, '/' separated.")
    line: int = Field(ge=0, description="1-based line of the chunk element's start tag (0: unknown).")
    xpath: str = Field(
        description="Unprefixed positional path inside the source file, e.g. /task[1]/taskbody[1]/steps[1]."
    )


class ProfileInfo(_Strict):
    name: str = Field(description="Profile name: the subject-scheme key or the NAME of --profile NAME=FILE.")
    labels: list[str] = Field(
        description="Display name first, then the other names readers use (subject scheme navtitle, keywords)."
    )
    ditaval_digest: str = Field(description="sha256 of the DITAVAL the profile was built with.")
    keeps: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict,
        description="The subject scheme's values this profile keeps, for each profiling attribute its DITAVAL "
        "narrows: attribute -> value -> the names the scheme gives that value (display name first, then the "
        "other names readers use; the value itself when the scheme gives none). Attributes in the scheme's "
        "binding order, values in its document order. Empty without a scheme, or when the DITAVAL narrows no "
        "scheme attribute (exports written before this field also load with it empty).",
    )


class OwnedValue(_Strict):
    """A value the doc set itself ties to some profiles (and so to no other)."""

    value: str
    profiles: list[str] = Field(description="The profiles that own the value, in profile order.")
    rule: Literal["keydef", "scheme-data"] = Field(
        description="keydef: resolved text of a key whose definitions differ by profile; "
        "scheme-data: <data name='valid-value' value='...'/> inside a subjectdef."
    )
    key: str | None = Field(default=None, description="The key name, for rule 'keydef'.")
    source: SourceLocation | None = None


class ExportWarning(_Strict):
    path: str
    line: int
    feature: str = Field(description="Short name of the unsupported or suspicious feature.")
    message: str


class ExportCounts(_Strict):
    chunks: int = Field(ge=0, description="Chunk lines in this export.")
    kept_by_no_profile: int = Field(
        ge=0, description="Chunk-forming elements that no profile's build keeps (not exported)."
    )
    per_profile: dict[str, int] = Field(description="Chunks in scope, per profile.")
    not_chunked: dict[str, int] = Field(
        default_factory=dict,
        description="Block elements that some profile keeps but whose content is in no chunk (left out of "
        "text, such as draft-comment, foreign or block images, or outside every chunk), by element name; "
        "only the outermost such element counts.",
    )


class ExportHeader(_Strict):
    kind: Literal["header"] = "header"
    schema_version: str = SCHEMA_VERSION
    map: str = Field(description="The root map's file name, relative to its own directory.")
    attribute: str | None = Field(
        default=None, description="The profiling attribute bound by the subject scheme, when profiles come from it."
    )
    profiles: list[ProfileInfo]
    scheme_digest: str | None = Field(default=None, description="sha256 of the subject scheme map, if any.")
    exporter_version: str
    stylesheet_digest: str = Field(description="sha256 over the xsl/ stylesheets, see valid.export.xslt.stylesheet_digest.")
    source_commit: str | None = Field(default=None, description="git HEAD of the doc set, when it is in git.")
    counts: ExportCounts
    owned_values: list[OwnedValue] = Field(default_factory=list)
    warnings: list[ExportWarning] = Field(default_factory=list)


class Chunk(_Strict):
    kind: Literal["chunk"] = "chunk"
    id: str = Field(
        description="Stable id: '<path>#<topic id>/<element id or qname-count>', plus '~<profiles>' "
        "when the text differs by profile (one variant per distinct text)."
    )
    text: str = Field(description="The chunk's text; commands and code verbatim.")
    title: str
    breadcrumbs: list[str] = Field(description="Map title, enclosing topic titles, then the chunk's own title.")
    type: ChunkType
    topic_id: str
    source: SourceLocation
    scope: dict[str, bool] = Field(description="One entry per profile: does that profile's build keep this text?")
    scope_origin: ScopeOrigin
    code: list[str] = Field(
        default_factory=list, description="Commands, code blocks and code phrases inside the chunk, verbatim."
    )
    digest: str = Field(description="sha256 (hex) of text, UTF-8.")

    def in_scope(self) -> list[str]:
        return [p for p, kept in self.scope.items() if kept]


class Export(BaseModel):
    """A whole export in memory: the header and its chunks, in file order."""

    header: ExportHeader
    chunks: list[Chunk]
