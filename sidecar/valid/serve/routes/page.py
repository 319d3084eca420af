"""The ask page: `GET /` (HTML in the doc set's own words; its script reads `?generation=`) and its
script and stylesheet.

The page's words come from valid.wording over the release being served (the map's title, the
profiling attribute, the builds' names) and the team's `[serve]` settings. Before a release is
loaded the page has the catalogue's generic words; its script puts the doc set's in once
`/v1/releases/active` answers.
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from valid.serve.service import service_of
from valid.templating import render_text
from valid.wording import DocSetFacts, wording_for

STATIC = resources.files("valid.serve") / "static"

router = APIRouter()


def render_page(template: str, words: dict[str, str]) -> str:
    """The page with each {{key}} replaced by its string, escaped by the template environment's
    autoescaping (for text and attribute values); a key the words lack is an error."""
    return render_text(template, **words)


@router.get("/", include_in_schema=False)
def index(request: Request) -> HTMLResponse:
    service = service_of(request)
    lease = service.holder.acquire()
    try:
        facts = lease.answerer.docset() if lease is not None else DocSetFacts()
    finally:
        if lease is not None:
            lease.end()
    words = wording_for(facts, service.config.wording)
    return HTMLResponse(render_page((STATIC / "index.html").read_text(encoding="utf-8"), words))


def install(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
