"""The served view of a cited source topic: where every citation link on the ask page points.

A citation is a chunk id, `<path>#<topic id>/<element>`. Its link is
`/sources/<path>?generation=<g>#<topic id>/<element>`: the page lists the chunks of that source file
from the pinned release, in document order, each under an element whose id is the part of the chunk
id after '#', so the browser scrolls to (and CSS highlights) the cited chunk. With `generation`, only
the chunks that generation's build keeps are shown, so a link never shows another generation's text
as if it applied to the reader's generation. Everything comes from the release's own chunks: it works offline.
"""

from __future__ import annotations

from html import escape

from valid.serve.answerer import Generation, SourceChunk
from valid.serve.schemas import SourceChunkView, SourceView


def split_chunk_id(chunk_id: str) -> tuple[str, str]:
    """`topics/a.dita#t/s` → (`topics/a.dita`, `t/s`)."""
    path, _, anchor = chunk_id.partition("#")
    return path, anchor


def source_view(release: str, path: str, chunks: list[SourceChunk], generation: str | None) -> SourceView:
    shown = [c for c in chunks if generation is None or generation in c.scope]
    return SourceView(
        release=release,
        path=path,
        generation=generation,
        chunks=[
            SourceChunkView(
                id=c.id,
                anchor=split_chunk_id(c.id)[1],
                title=c.title,
                text=c.text,
                breadcrumbs=list(c.breadcrumbs),
                line=c.line,
                scope=list(c.scope),
            )
            for c in shown
        ],
        hidden=len(chunks) - len(shown),
    )


def _label(name: str, generations: list[Generation]) -> str:
    for g in generations:
        if g.name == name:
            return g.label
    return name


def render_source_page(view: SourceView, generations: list[Generation]) -> str:
    """The HTML page for one source file. Every piece of content is escaped."""
    e = escape
    topic_title = view.path
    if view.chunks and len(view.chunks[0].breadcrumbs) >= 2:
        topic_title = view.chunks[0].breadcrumbs[-2]
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(topic_title)} · source · VALID</title>",
        '<link rel="stylesheet" href="/static/app.css">',
        '</head><body class="source-page">',
        '<a class="skip" href="#main">Skip to content</a>',
        '<header><p><a href="/">← Ask another question</a></p>',
        f"<h1>{e(topic_title)}</h1>",
        f'<p class="where">Source file <code>{e(view.path)}</code> · release <code>{e(view.release)}</code></p>',
    ]
    if view.generation is not None:
        note = f"Showing the parts of this topic for {e(_label(view.generation, generations))}."
        if view.hidden:
            note += f" {view.hidden} part{'s' if view.hidden != 1 else ''} for other generations not shown."
        parts.append(f'<p class="scope-note">{note}</p>')
    parts.append('</header><main id="main">')
    if not view.chunks:
        parts.append("<p>Nothing in this source is in scope for that generation.</p>")
    for chunk in view.chunks:
        scope = ", ".join(_label(p, generations) for p in chunk.scope)
        parts += [
            f'<section class="chunk" id="{e(chunk.anchor)}" tabindex="-1" aria-labelledby="h-{e(chunk.anchor)}">',
            f'<h2 id="h-{e(chunk.anchor)}">{e(chunk.title)}</h2>',
            f'<p class="where">{e(" › ".join(chunk.breadcrumbs))} · line {chunk.line} · for {e(scope)}</p>',
            f'<div class="chunk-text">{e(chunk.text)}</div>',
            "</section>",
        ]
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"
