"""The fitted selection model: which candidate unit answers, as a calibrated probability.

    model = SelectionModel.default()          # the weights fitted on the dev halves, shipped in valid/data
    p = model.probability({"cosine": 0.61, "bm25": 3.2, "kind=row*value": 1.0, ...})

A unit's features (valid.answer.extract.unit_features) are general signals that name no wording:
the similarity of the unit's vector to the question's, BM25 of the unit's terms, the DITA element
kind crossed with what is asked, title and breadcrumb match, position, the chunk's fused rank and
the answerer's structural fits (kind, anchors, quantity family, profile-specific content). One
logistic score combines them; the weights are not set by hand but fitted on the dev halves of the
trap sets by valid.answer.fit (`python3 bench/fit_selection.py`), and the result is stored in
`valid/data/selection-weights.json` with the dev fit it reached.

`keep_ratio`: the answer's further units (up to three) are those within this share of the best
unit's probability; chosen by the same fit (the share of answerable dev requests whose kept units
hold the expected answer).

`floor`: the least probability the best unit must reach for an answer; below it the answerer
abstains (an empty draft, which the engine turns into a refusal). Fitted on the same dev questions
to separate the answerable from the unanswerable (absent in the build asked about, out of domain).
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from typing import Mapping

from pydantic import BaseModel, ConfigDict, Field

WEIGHTS_FILE = "selection-weights.json"
WEIGHTS_SCHEMA = "valid-selection/1"


class SelectionFit(BaseModel):
    """What the fit reached on its own data (reported in docs/answer.md)."""

    model_config = ConfigDict(extra="allow")

    requests: int = 0
    units: int = 0
    positives: int = 0
    top1: float = Field(default=0.0, description="Share of answerable requests whose best unit is a positive.")
    answerable_kept: str = ""
    unanswerable_refused: str = ""


class SelectionWeights(BaseModel):
    """The stored form of a fitted model."""

    model_config = ConfigDict(extra="forbid")

    schema_version: str = WEIGHTS_SCHEMA
    bias: float
    weights: dict[str, float]
    floor: float = Field(ge=0.0, le=1.0)
    keep_ratio: float = Field(default=0.6, gt=0.0, le=1.0)
    fit: SelectionFit = SelectionFit()
    command: str = ""


class SelectionModel:
    """A logistic score over named features.

    weights: feature name → weight, on the features' raw scale (a feature the model does not name
             counts for nothing; a name the features do not produce is never set).
    bias:    the intercept.
    floor:   the least probability of the best unit for an answer (0: never abstain on it).
    keep_ratio: the answer's further units are those within this share of the best one's probability.
    """

    def __init__(self, weights: Mapping[str, float], bias: float = 0.0, floor: float = 0.0, keep_ratio: float = 0.6):
        self.weights = dict(weights)
        self.bias = float(bias)
        self.floor = float(floor)
        self.keep_ratio = float(keep_ratio)

    @classmethod
    def from_stored(cls, stored: SelectionWeights) -> "SelectionModel":
        return cls(stored.weights, stored.bias, stored.floor, stored.keep_ratio)

    @classmethod
    def default(cls) -> "SelectionModel":
        """The model fitted on the dev halves, shipped with the code."""
        return cls.from_stored(_shipped())

    def logit(self, features: Mapping[str, float]) -> float:
        return self.bias + sum(self.weights.get(name, 0.0) * value for name, value in features.items())

    def probability(self, features: Mapping[str, float]) -> float:
        z = self.logit(features)
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


@lru_cache(maxsize=1)
def _shipped() -> SelectionWeights:
    # Read once per process: the file is part of the package and never changes while it runs.
    text = (resources.files("valid") / "data" / WEIGHTS_FILE).read_text(encoding="utf-8")
    return SelectionWeights.model_validate(json.loads(text))
