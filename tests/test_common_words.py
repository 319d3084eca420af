"""A word most of a doc set's chunks write (its product's own name) is no anchor: written in code form
in a question ("DITA-OT"), it picks no passage, since nearly every passage holds it.

The release lists those words from its full-text index (FTS5's document count per token,
valid.index.fts.common_tokens); the engine hands them to the question's one reading and to the
offline answerer, which both leave them out of the anchors."""

from __future__ import annotations

import json
import math

from valid.answer.extract import read_question
from valid.answer.prompt import GenerationRequest
from valid.answer.question import anchors
from valid.answer.reading import read
from valid.answer.vocabulary import COMMON_SHARE
from valid.answer.wiring import open_engine
from valid.index import Store, open_active

QUESTION = "Which DITA-OT parameter sets args.css for HTML5?"


def texts(anchor_list) -> list[str]:
    return [a.text for a in anchor_list]


def test_a_product_name_in_code_form_is_an_anchor_unless_most_chunks_write_it():
    assert texts(anchors(QUESTION)) == ["DITA-OT", "args.css", "HTML5"]
    assert texts(anchors(QUESTION, common={"dita-ot"})) == ["args.css", "HTML5"]


def test_the_reading_and_the_answerer_leave_the_common_words_out():
    assert texts(read(QUESTION, common={"dita-ot"}).anchors) == ["args.css", "HTML5"]
    request = GenerationRequest(question=QUESTION, scope=["linux"], labels=["Linux"], chunks=[], profiles=["linux"])
    assert texts(read_question(request).anchors) == ["DITA-OT", "args.css", "HTML5"]
    assert texts(read_question(request, common=frozenset({"dita-ot"})).anchors) == ["args.css", "HTML5"]


def _document_counts(export_path) -> tuple[int, dict[str, int]]:
    """How many chunks write each word of the sample, read from the export (not from the index)."""
    counts: dict[str, int] = {}
    total = 0
    for line in export_path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("kind") == "header":
            continue
        total += 1
        words = set((record.get("title", "") + " " + record.get("text", "")).lower().split())
        for word in {w.strip(".,:;()[]\"'") for w in words}:
            counts[word] = counts.get(word, 0) + 1
    return total, counts


def test_the_release_lists_the_words_a_quarter_of_its_chunks_write(sample_build):
    total, counts = _document_counts(sample_build.export)
    least = math.ceil(COMMON_SHARE * total)
    release = open_active(Store(sample_build.state))
    try:
        common = release.vocabulary().common
    finally:
        release.close()
    # The product's name is in nearly every chunk; a word of a single chunk is not common.
    assert counts["tpu"] >= least and "tpu" in common
    rare = sorted(w for w, n in counts.items() if n == 1 and w.isalpha() and len(w) > 6)
    assert rare and not set(rare) & common


def test_the_engine_hands_the_releases_common_words_to_its_answerer(sample_build):
    with open_engine(sample_build.state, log=False, gap_issues=False) as engine:
        assert engine.vocabulary.common and engine.offline.common == engine.vocabulary.common
        question = "How many chips does a TPU v5p host have?"
        reading = engine.read(question, engine.resolve_scope(question, None, {}))
        assert not {a.text.lower() for a in reading.anchors} & engine.vocabulary.common
