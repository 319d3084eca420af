"""The index report: what a build scoped, embedded, changed and found.

Written as `report.json` and a readable `report.html` into the release directory. Audit findings
arrive as a list from the caller (empty until the audit runs before indexing).
"""

from __future__ import annotations

import html
from typing import Any

from pydantic import BaseModel, Field


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


def _number(value: Any, label: str) -> str:
    return f'<div class="n"><b>{html.escape(str(value))}</b><span>{html.escape(label)}</span></div>'


def to_html(report: IndexReport) -> str:
    e = html.escape
    origin = report.by_scope_origin
    ch = report.changes
    findings = "".join(f"<li>{e(_finding_line(f))}</li>" for f in report.findings) or "<li>No open findings.</li>"
    releases = "".join(
        f"<tr><td><code>{e(r.id[:12])}</code></td><td>{'active' if r.active else ''}</td>"
        f"<td>{e(r.built_at)}</td><td>{r.chunks}</td></tr>"
        for r in report.releases
    )
    per_profile = ", ".join(f"{e(report.profiles.get(p, p))}: {n}" for p, n in report.per_profile.items())
    previous = f"<code>{e(ch.previous_release[:12])}</code>" if ch.previous_release else "none (first release)"
    commit = f" · commit {e(report.source_commit[:12])}" if report.source_commit else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Index build {e(report.release_id[:12])}</title>
<style>
body{{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}}
.nums{{display:flex;gap:1rem;flex-wrap:wrap}} .n{{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem}}
.n b{{display:block;font-size:1.6rem}} .n span{{color:#555}} h2{{margin-top:1.6rem;font-size:1.1rem}}
table{{border-collapse:collapse}} td,th{{padding:.2rem .8rem;border-bottom:1px solid #eee;text-align:left}}
</style></head><body>
<h1>Index build · {e(report.map)}{commit}</h1>
<p>Release <code>{e(report.release_id)}</code>{' (reused: identical release already built)' if report.reused_release else ''}
{' · active' if report.activated else ' · not activated'}</p>
<div class="nums">
{_number(report.chunks, "chunks scoped")}
{_number(len(report.profiles), "generations in scheme")}
{_number(report.embedding.embedded, "chunks re-embedded")}
{_number(len(report.findings), "scope findings")}
</div>
<h2>Scope</h2>
<p>Cascaded from the map: {origin.get('cascaded', 0)} chunks. Narrowed by element profiling: {origin.get('element', 0)}.
Shared, no attribute: {origin.get('shared', 0)}.</p>
<p>In scope per generation: {per_profile}.</p>
<h2>Changes since the previous active release ({previous})</h2>
<p>Added {ch.added}, deleted {ch.deleted}, text changed {ch.text_changed}, rescoped only {ch.rescoped}, unchanged {ch.unchanged}.</p>
<h2>Findings</h2>
<ul>{findings}</ul>
<h2>Indexes</h2>
<p>Chroma ({e(report.store)}): collection <code>{e(report.collection)}</code>, {report.chunks} vectors;
filter fields {", ".join(e(f) for f in report.metadata_fields if f.startswith("in_"))}.
Embeddings ({e(report.embedding.embedder)}, {report.embedding.dimension} dimensions): {report.embedding.embedded} computed,
{report.embedding.reused} reused from the cache; {report.embedding.variants_sharing} chunks share the vector of another
variant that differs from them only in its profiles' names.
BM25 (SQLite FTS5, <code>{e(report.bm25_tokenizer)}</code>): {report.bm25_rows} rows.
Run time {report.timings.get('total', 0):.1f} s.</p>
<h2>Releases</h2>
<table><tr><th>release</th><th></th><th>built</th><th>chunks</th></tr>{releases}</table>
</body></html>
"""
