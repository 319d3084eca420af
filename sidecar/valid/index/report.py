"""The index report: what a build scoped, embedded, changed and found.

Written as `report.json` and a readable `report.html` into the release directory. Audit findings
arrive as a list from the caller (empty until the audit runs before indexing).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from valid.templating import render


class EmbeddingCounts(BaseModel):
    embedder: str
    dimension: int
    inputs: int = Field(description="Distinct embedding inputs in this release.")
    embedded: int = Field(description="Inputs embedded by this build.")
    reused: int = Field(description="Inputs found in the embedding cache.")
    variants_sharing: int = Field(
        default=0,
        description="Chunks embedded as another variant of their chunk identity: they differ from it only in "
        "their profiles' names and owned values (index/variants.py).",
    )


class Changes(BaseModel):
    """Compared with the release that was active when the build started."""

    previous_release: str | None
    added: int = 0
    deleted: int = 0
    text_changed: int = 0
    rescoped: int = Field(0, description="Same text, different scope.")
    unchanged: int = 0
    deleted_ids: list[str] = Field(default_factory=list, description="At most 50, sorted.")


class ReleaseLine(BaseModel):
    id: str
    active: bool
    built_at: str
    chunks: int


class IndexReport(BaseModel):
    release_id: str
    reused_release: bool = Field(description="True when an identical verified release already existed.")
    activated: bool
    map: str
    source_commit: str | None
    profiles: dict[str, str] = Field(description="Profile name → display label.")
    chunks: int
    per_profile: dict[str, int]
    by_scope_origin: dict[str, int]
    embedding: EmbeddingCounts
    changes: Changes
    findings: list[dict[str, Any]] = Field(default_factory=list)
    store: str
    collection: str
    metadata_fields: list[str]
    bm25_rows: int
    bm25_tokenizer: str
    releases: list[ReleaseLine] = Field(default_factory=list)
    timings: dict[str, float] = Field(description="Seconds per stage, and total.")
    built_at: str


def _finding_line(finding: dict[str, Any]) -> str:
    """One readable line for an audit finding (valid.audit Finding fields) or any dict with a message."""
    where = str(finding.get("path", ""))
    if finding.get("line"):
        where += f", line {finding['line']}"
    if "value" in finding and "owners" in finding:
        shown = ", ".join(finding.get("shown_to") or [])
        what = f"{finding.get('chunk_id', 'a chunk')} shows {finding['value']}, owned by {', '.join(finding['owners'])}"
        return f"{where}: {what}" + (f", to {shown}" if shown else "")
    return f"{where}: {finding.get('message') or finding.get('summary') or finding}" if where else str(
        finding.get("message") or finding
    )


def to_html(report: IndexReport) -> str:
    numbers = [
        (report.chunks, "chunks scoped"),
        (len(report.profiles), "generations in scheme"),
        (report.embedding.embedded, "chunks re-embedded"),
        (len(report.findings), "scope findings"),
    ]
    return render(
        "index_report.html", report=report, origin=report.by_scope_origin, ch=report.changes, numbers=numbers,
        findings=[_finding_line(f) for f in report.findings],
        filter_fields=[f for f in report.metadata_fields if f.startswith("in_")],
    )
