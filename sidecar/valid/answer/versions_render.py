"""A versions answer as text (for `valid ask`): its kind, summary, the versions named, and every
piece of evidence with its citation (or the subject scheme)."""

from __future__ import annotations

import textwrap
from typing import Mapping

from valid.answer.models import VersionsAnswer

WIDTH = 100
KIND_WORDS = {
    "list": "documented versions", "count": "how many versions", "latest": "the latest version",
    "oldest": "the oldest version", "exists": "is this version documented?", "since": "since which version",
    "until": "until which version", "changed": "what changed in this version", "same": "the same in every version?",
}


def render_versions(answer: VersionsAnswer, labels: Mapping[str, str] | None = None, width: int = WIDTH) -> str:
    labels = dict(labels or {})
    product = f" ({answer.product})" if answer.product else ""
    out = [f"About the versions{product}: {KIND_WORDS.get(answer.kind, answer.kind)}"]
    if answer.verdict is not None:
        out.append("Yes." if answer.verdict else "No.")
    out.append(textwrap.fill(answer.summary, width=width))
    if answer.versions:
        out.append("Versions: " + ", ".join(answer.labels))
    for number, piece in enumerate(answer.evidence, start=1):
        name = labels.get(piece.generation, piece.generation)
        text = textwrap.indent(textwrap.fill(f"{name}: {piece.text}", width=width - 6), "     ").lstrip()
        out.append(f"  {number}. {text}")
        out.append(f"     [{piece.cite}]" if piece.cite else "     [subject scheme]")
    return "\n".join(out)
