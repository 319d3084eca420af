"""Fit the offline answerer's selection model on the dev halves, and write it where the code reads it.

    python3 bench/fit_selection.py \
        --set sidecar/valid/data/trapset-cloud-tpu.jsonl=STATE_TPU \
        --set sidecar/valid/data/trapset-corvane.jsonl=STATE_CORVANE \
        --set tests/trapsets/dita-ot-docs.jsonl=STATE_DOT \
        --write sidecar/valid/data/selection-weights.json

Each STATE is a state directory whose active release is the trap set's doc set (`valid index`).
Only the **dev** half of each trap set is read. Every dev question is asked through the engine with
the offline answerer (scope resolution, retrieval and the agreement checks as `valid ask` runs them);
each request that reaches the answerer is recorded with its candidate units and their features
(valid.answer.extract.unit_candidates). Labels come from the trap set (valid.answer.fit.label_units);
the weights from valid.answer.fit.fit_logistic, the abstention floor from fit_floor over the
requests' best units: answerable (a question expecting an answer, whose best unit is a positive:
one whose best unit is wrong is lost either way) against unanswerable (strata absent and
out-of-domain). Deterministic: same releases, same file.

Without --write, prints the fit only.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UNANSWERABLE = ("absent", "out-of-domain")


def record(trapset: str, state: str, selector: str = "rules", split: str | None = "dev"):
    """(trap question, request) for every request the offline answerer gets on the `split` half
    (every question when None)."""
    from valid.answer import open_engine
    from valid.answer.extract import OfflineExtractive
    from valid.evaluate.trapset import load_trapset, select_split

    seen: list = []
    current: list = [None]

    class Recording(OfflineExtractive):
        def generate(self, request):
            seen.append((current[0], request))
            return super().generate(request)

    questions = load_trapset(trapset)
    questions = select_split(questions, split) if split else questions
    with open_engine(state, generator=Recording(selector=selector), log=False, gap_issues=False) as engine:
        for question in questions:
            current[0] = question
            engine.ask(question.question)
        vectors = engine.generator.vectors
        return seen, vectors


def examples_of(recorded, vectors, offset: int = 0):
    """The labelled candidate units of every recorded request, and per request (answerable, id)."""
    from valid.answer.extract import PIECE_KINDS, unit_candidates, unit_input
    from valid.answer.fit import Example, label_units

    examples, requests = [], []
    done = set()
    for question, request in recorded:
        key = (question.id, tuple(request.scope), tuple(c.id for c in request.chunks), request.attempt)
        if key in done:
            continue
        done.add(key)
        asked, candidates = unit_candidates(request, vectors)
        if not candidates:
            continue
        unanswerable = question.stratum in UNANSWERABLE
        required = [] if unanswerable else question.expect.values.get(request.scope[0], [])
        if not unanswerable and not required:
            continue  # nothing to judge the units by (a question whose expectation names no value here)
        labels = label_units([unit_input(c.unit) for c in candidates], required, question.expect.forbidden)
        if not unanswerable and not any(labels):
            continue  # the evidence holds no answer: neither a lesson for selection nor for abstention
        number = offset + len(requests)
        requests.append((not unanswerable, question.id))
        for c, positive in zip(candidates, labels):
            eligible = asked.kind not in PIECE_KINDS or c.kind_fits
            examples.append(Example(number, c.features, positive, eligible))
    return examples, requests


def evaluate_model(model, examples, requests, rules=None):
    """Top-1 over answerable requests (the best eligible unit is positive), and each request's best probability."""
    by_request: dict[int, list] = {}
    for e in examples:
        by_request.setdefault(e.request, []).append(e)
    right = answerable = 0
    best = []
    for number, units in by_request.items():
        eligible = [e for e in units if e.eligible]
        if not eligible:
            continue
        top = max(eligible, key=lambda e: model.probability(e.features))
        ok, _ = requests[number]
        # An answerable request whose best unit is wrong is lost whether it is answered or refused:
        # the floor is judged on the others.
        if not ok or top.positive:
            best.append((model.probability(top.features), ok))
        if ok:
            answerable += 1
            right += top.positive
    return right, answerable, best


def kept_hits(model, examples, requests, ratio: float, max_steps: int = 3) -> int:
    """Answerable requests whose kept units (the best, and up to max_steps within `ratio` of its
    probability, as the answerer keeps them) hold a positive."""
    by_request: dict[int, list] = {}
    for e in examples:
        by_request.setdefault(e.request, []).append(e)
    hits = 0
    for number, units in by_request.items():
        eligible = sorted((e for e in units if e.eligible and not e.features.get("says_nothing")),
                          key=lambda e: -model.probability(e.features))
        if eligible and requests[number][0]:
            best = model.probability(eligible[0].features)
            kept = [e for e in eligible if model.probability(e.features) >= ratio * best][:max_steps]
            hits += any(e.positive for e in kept)
    return hits


def _shown(path: str) -> str:
    """A trap set's path as the weights file records it: relative to the repository, never a machine path."""
    resolved = Path(path).resolve()
    return resolved.relative_to(REPO).as_posix() if resolved.is_relative_to(REPO) else Path(path).name


RATIOS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", action="append", required=True, metavar="TRAPSET=STATE", help="a trap set's dev half")
    parser.add_argument("--seen", action="append", default=[], metavar="TRAPSET=STATE",
                        help="every question of a blind round whose first run is reported: dev material from then on")
    parser.add_argument("--l2", type=float, default=30.0, help="L2 strength on standardised features (default 30: "
                        "best of 1, 10, 30, 100, 300 fitted on two trap sets and judged on the third)")
    parser.add_argument("--crossed", action="store_true", help="also fit the element kind crossed with what is asked "
                        "(left out by default: judged on a trap set left out of the fit, it ranked worse)")
    parser.add_argument("--write", metavar="JSON")
    parser.add_argument("--examples", metavar="FILE", help="keep the labelled units here, and reuse them when present")
    args = parser.parse_args()
    from valid.answer.fit import fit_floor, fit_logistic
    from valid.answer.selection import SelectionFit, SelectionModel, SelectionWeights

    examples, requests = [], []
    if args.examples and Path(args.examples).is_file():
        examples, requests = pickle.loads(Path(args.examples).read_bytes())
    else:
        for pair, split in [(p, "dev") for p in args.set] + [(p, None) for p in args.seen]:
            trapset, state = pair.split("=", 1)
            recorded, vectors = record(trapset, state, split=split)
            more, reqs = examples_of(recorded, vectors, offset=len(requests))
            examples += more
            requests += reqs
            print(f"{Path(trapset).name}: {len(reqs)} requests, {len(more)} units, {sum(e.positive for e in more)} positive", file=sys.stderr)
        if args.examples:
            Path(args.examples).write_bytes(pickle.dumps((examples, requests)))
    if not args.crossed:
        examples = [replace(e, features={k: v for k, v in e.features.items() if "*" not in k}) for e in examples]
    bias, weights = fit_logistic(examples, l2=args.l2)
    model = SelectionModel(weights, bias)
    right, answerable, best = evaluate_model(model, examples, requests)
    floor, kept, n_ok, refused, n_bad = fit_floor(best)
    # The kept share: the highest ratio that holds the most answers (fewer units when it costs none).
    hits = {ratio: kept_hits(model, examples, requests, ratio) for ratio in RATIOS}
    keep_ratio = max(RATIOS, key=lambda r: (hits[r], r))
    print("kept units hold the answer, by keep ratio: " + ", ".join(f"{r}: {hits[r]}" for r in RATIOS), file=sys.stderr)
    stored = SelectionWeights(
        bias=round(bias, 6),
        weights=dict(sorted(weights.items(), key=lambda kv: -abs(kv[1]))),
        floor=floor,
        keep_ratio=keep_ratio,
        fit=SelectionFit(
            requests=len(requests), units=len(examples), positives=sum(e.positive for e in examples),
            top1=round(right / answerable, 4) if answerable else 0.0,
            answerable_kept=f"{kept}/{n_ok}", unanswerable_refused=f"{refused}/{n_bad}",
        ),
        command="python3 bench/fit_selection.py " + " ".join(f"--set {_shown(p.split('=', 1)[0])}=STATE" for p in args.set)
        + "".join(f" --seen {_shown(p.split('=', 1)[0])}=STATE" for p in args.seen)
        + (f" --l2 {args.l2:g}" if args.l2 != 30.0 else "") + (" --crossed" if args.crossed else ""),
    )
    text = json.dumps(stored.model_dump(mode="json"), indent=1) + "\n"
    print(text)
    print(f"top-1 on answerable dev requests: {right}/{answerable}; floor {floor}: answerable kept {kept}/{n_ok}, "
          f"unanswerable refused {refused}/{n_bad}", file=sys.stderr)
    if args.write:
        Path(args.write).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
