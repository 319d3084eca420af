"""Run the trap set through VALID and through the unfiltered baseline, cell by cell, and score it.

Both arms see the same questions in the same order, the same chunks, the same embedder and the same
generator. Every (arm, question) cell is present in the result: a run that raises is recorded as an
explicit failure, never dropped.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

from valid.answer import open_engine
from valid.answer.check import citable_text
from valid.answer.tuning import Tuning
from valid.evaluate.baseline import Baseline
from valid.evaluate.score import Cell, failed_cell, grounded, score_cell
from valid.evaluate.scorecard import Scorecard, build_scorecard
from valid.evaluate.trapset import TrapQuestion, load_trapset, select_split


def evaluate(
    trapset: str | Path,
    state: str | Path,
    *,
    generator="offline",  # a generator's name, or a Generator
    chroma_url: str | None = None,
    baseline: bool = True,
    split: str = "all",
    progress: Callable[[str], None] | None = None,
    release_id: str | None = None,
    version_order: tuple[str, ...] | list[str] = (),
    tuning: Tuning | None = None,
) -> tuple[Scorecard, dict[str, list[dict]]]:
    """Score every question of `trapset` (or of one of its halves: split "dev" or "test") against
    the active release in `state` (or `release_id`, e.g. a release built with --no-activate that
    waits for this gate).

    Returns the scorecard and the raw answer objects per arm (for the report's evidence).
    """
    questions = select_split(load_trapset(trapset), split)
    state = Path(state)
    raw: dict[str, list[dict]] = {"valid": [], "baseline": []}
    cells: list[Cell] = []
    with open_engine(
        state, generator=generator, chroma_url=chroma_url, release_id=release_id, version_order=version_order,
        tuning=tuning,
    ) as engine:
        release = engine.release
        chunks = release.get_chunks(release.all_chunk_ids())
        scopes = {chunk.id: set(chunk.in_scope()) for chunk in chunks}
        texts = {chunk.id: citable_text(chunk) for chunk in chunks}

        def run_arm(arm: str, ask: Callable[[TrapQuestion], dict]) -> None:
            for number, question in enumerate(questions, start=1):
                if progress:
                    progress(f"{arm} {number}/{len(questions)}")
                try:
                    obj = ask(question)
                except Exception as err:  # kept as an explicit failure cell, never dropped
                    raw[arm].append({"question": question.id, "error": f"{type(err).__name__}: {err}"})
                    cells.append(failed_cell(question, arm, f"{type(err).__name__}: {err}"))
                    continue
                raw[arm].append({"question": question.id, "answer": obj})
                cells.append(score_cell(question, arm, obj, scopes, texts, grounded))

        run_arm("valid", lambda q: engine.ask(q.question).answer.model_dump(mode="json"))
        if baseline:
            arm = Baseline.build(
                release.header,
                chunks,
                state / "baseline",
                engine.embedder,
                engine.generator,
                main_cache=release.store.cache_path,
                tuning=engine.tuning,
            )
            try:
                run_arm("baseline", lambda q: arm.ask(q.question))
            finally:
                arm.close()
        card = build_scorecard(cells, trapset=str(trapset), release=release.id, split=split)
    return card, raw


def print_progress(message: str) -> None:
    if sys.stderr.isatty():
        print(f"\r{message:<40}", end="", file=sys.stderr, flush=True)
