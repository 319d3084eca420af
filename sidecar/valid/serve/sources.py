"""The served view of a cited source topic: where every citation link on the ask page points.

A citation is a chunk id, `<path>#<topic id>/<element>`. Its link is
`/sources/<path>?generation=<g>#<topic id>/<element>`: the page lists the chunks of that source file
from the pinned release, in document order, each under an element whose id is the part of the chunk
id after '#', so the browser scrolls to (and CSS highlights) the cited chunk. With `generation`, only
the chunks that generation's build keeps are shown, so a link never shows another generation's text
as if it applied to the reader's generation. Everything comes from the release's own chunks: it works offline.
"""

from __future__ import annotations

from valid.answer.citations import title_path
from valid.serve.answerer import Generation, SourceChunk
from valid.wording import DocSetFacts, fill, join_names, wording_for
from valid.serve.schemas import SourceChunkView, SourceView
from valid.templating import render


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


def render_source_page(view: SourceView, generations: list[Generation], words: dict[str, str] | None = None) -> str:
    """The HTML page for one source file, in the doc set's words (valid.wording). Every piece of
    content is escaped (the template's autoescaping); the file name and the release id are in a
    details element, out of the way."""
    w = words or wording_for(DocSetFacts())
    topic_title = view.path
    if view.chunks and len(view.chunks[0].breadcrumbs) >= 2:
        topic_title = view.chunks[0].breadcrumbs[-2]
    note = None
    if view.generation is not None:
        note = fill(w["source_showing"], name=_label(view.generation, generations))
        if view.hidden:
            hidden = w["source_hidden_one"] if view.hidden == 1 else w["source_hidden_many"]
            note += " " + fill(hidden, n=str(view.hidden))
    sections = [
        {
            "chunk": chunk,
            "where": " › ".join(title_path(chunk.breadcrumbs)),
            "scope": fill(w["source_for"], names=join_names([_label(p, generations) for p in chunk.scope], w)),
        }
        for chunk in view.chunks
    ]
    return render("source.html", w=w, fill=fill, view=view, topic_title=topic_title, note=note, sections=sections)
