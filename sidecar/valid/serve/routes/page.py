"""The ask page: `GET /` (static HTML; its script reads `?generation=`) and its script and stylesheet."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC = resources.files("valid.serve") / "static"

router = APIRouter()


@router.get("/", include_in_schema=False)
def index() -> HTMLResponse:
    return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))


def install(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
