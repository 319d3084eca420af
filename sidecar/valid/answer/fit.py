"""Fitting the selection model (valid.answer.selection) on labelled candidate units.

Pure functions over plain data: the I/O (opening releases, asking the dev questions, writing the
weights file) is bench/fit_selection.py's.

- `label_units`: a unit is positive when it holds what the trap set expects of the request's
  build (every required value, each by one of its alternatives, as the scorers judge it with
  valid.tokens.mentions) and no forbidden value; when no unit holds them all, the units holding
  the most of them are.
- `fit_logistic`: L2-regularised logistic regression by Newton's method on standardised
  features, returned on the raw scale (so the stored weights read directly as the model's).
- `fit_floor`: the least probability of a request's best unit that separates the answerable dev
  requests (kept) from the unanswerable ones (absent in the build asked about, out of domain:
  refused): the highest floor that keeps 99 % of the answerable requests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from valid.evaluate.trapset import Required, mentions_any


@dataclass(frozen=True)
class Example:
    """One candidate unit of one request."""

    request: int
    features: dict
    positive: bool
    eligible: bool = True  # the answerer may pick it (a value question takes only units stating one)


def label_units(texts: Sequence[str], required: Sequence[Required], forbidden: Sequence[str]) -> list[bool]:
    """Which of a request's units hold the expected answer (see the module docstring)."""
    if not required:
        return [False] * len(texts)
    held = [sum(mentions_any(t, r) for r in required) for t in texts]
    bad = [any(mentions_any(t, f) for f in forbidden) for t in texts]
    best = max((h for h, b in zip(held, bad) if not b), default=0)
    return [h == best and h > 0 and not b for h, b in zip(held, bad)]


def fit_logistic(examples: Sequence[Example], l2: float = 1.0, iterations: int = 50) -> tuple[float, dict[str, float]]:
    """(bias, weights) of an L2-regularised logistic regression of `positive` on the features."""
    import numpy as np

    names = sorted({name for e in examples for name in e.features})
    x = np.array([[e.features.get(n, 0.0) for n in names] for e in examples], dtype=np.float64)
    y = np.array([1.0 if e.positive else 0.0 for e in examples])
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[0] = 0.0  # the intercept is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -30, 30)))
        gradient = z.T @ (p - y) + penalty * w
        hessian = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(z.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    raw = w[1:] / std
    bias = float(w[0] - np.sum(raw * mean))
    return bias, {n: round(float(v), 6) for n, v in zip(names, raw) if abs(v) > 1e-9}


def fit_floor(best: Sequence[tuple[float, bool]], keep: float = 0.99) -> tuple[float, int, int, int, int]:
    """(floor, answerable kept, answerable, unanswerable refused, unanswerable) for the requests'
    (best probability, answerable) pairs: the highest floor that still keeps `keep` of the
    answerable requests, which refuses as many unanswerable ones as that allows. (Maximising kept +
    refused never refuses on the dev halves, some forty answerable requests to each unanswerable
    one; maximising the two shares instead kept 95 % of the answerable requests and lost 10 of 102
    scoped dev questions on Cloud TPU.)"""
    answerable = sorted(p for p, a in best if a)
    unanswerable = [p for p, a in best if not a]
    lost = int(len(answerable) * (1 - keep))  # how many answerable requests the floor may refuse
    floor = 0.0
    if answerable and lost > 0:
        # Halfway between the last one refused and the first one kept.
        floor = round((answerable[lost - 1] + answerable[lost]) / 2, 6)
    kept = sum(1 for p in answerable if p >= floor)
    refused = sum(1 for p in unanswerable if p < floor)
    return floor, kept, len(answerable), refused, len(unanswerable)
