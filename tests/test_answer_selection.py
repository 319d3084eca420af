"""Fitted selection of the answering unit (issue 25 items 2 and 3): unit vectors stored by `valid index`
and read at ask time, the shipped weights are the fit's and decide the ranking, and a question whose
best unit is below the fitted floor is refused."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures.answer.index import build_state, offline_embedder

from valid.answer.extract import OfflineExtractive, unit_candidates
from valid.answer.fit import Example, fit_floor, fit_logistic, label_units
from valid.answer.models import EvidenceChunk
from valid.answer.prompt import GenerationRequest
from valid.answer.selection import SelectionModel, SelectionWeights
from valid.answer.wiring import open_engine
from valid.index import Store, open_active
from valid.index.units import UNIT_KEYS_FILE, UNITS_FILE

REPO = Path(__file__).resolve().parent.parent
QUESTION = "How many chips are in one TPU v5p VM?"


class CountingEmbedder:
    """The release's own embedder, counting the documents it embeds (unit vectors computed at ask time)."""

    def __init__(self, inner):
        self.inner = inner
        self.documents = 0

    id = property(lambda self: self.inner.id)
    dimension = property(lambda self: self.inner.dimension)

    def embed_documents(self, texts):
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text):
        return self.inner.embed_query(text)


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return build_state(tmp_path_factory.mktemp("selection"))


def _ask(state, tmp_path, embedder):
    generator = OfflineExtractive(selector="fitted")
    with open_engine(state, generator=generator, embedder=embedder, log=False, gap_issues=False) as engine:
        answer = engine.ask(QUESTION).answer
        return answer, engine.generator.vectors


def test_valid_index_stores_the_unit_vectors_and_an_ask_reads_them_without_embedding_a_unit(state, tmp_path):
    store = Store(state)
    with open_active(store) as release:
        directory = release.path
        assert release.unit_vectors is not None and len(release.unit_vectors) > 0
        assert release.unit_vectors.matrix.shape[1] == release.dimension
    # The verification stamp covers them: a changed file is noticed at the next opening.
    stamped = json.loads((directory / "checked.json").read_text())["files"]
    assert any(name.endswith(UNITS_FILE) for name in stamped) and any(name.endswith(UNIT_KEYS_FILE) for name in stamped)
    embedder = CountingEmbedder(offline_embedder())
    answer, vectors = _ask(state, tmp_path, embedder)
    assert answer.outcome == "answer"
    assert embedder.documents == 0 and vectors.computed == 0


def test_a_release_built_without_unit_vectors_still_answers_embedding_its_units_with_a_warning(tmp_path):
    state = build_state(tmp_path / "old")
    with open_active(Store(state)) as release:
        directory = release.path
    (directory / UNITS_FILE).unlink()
    (directory / UNIT_KEYS_FILE).unlink()
    embedder = CountingEmbedder(offline_embedder())
    with pytest.warns(UserWarning, match="stores no vectors for some answer units"):
        answer, vectors = _ask(state, tmp_path, embedder)
    assert answer.outcome == "answer"
    assert vectors.computed > 0 and embedder.documents == vectors.computed


# -- the fitted weights ------------------------------------------------------------------------

def _chunk(text, cid, title="TPU v5p"):
    return EvidenceChunk(id=cid, alias="c1", text=text, title=title, scope=["v5p"])


def _request(question, *chunks):
    return GenerationRequest(question=question, scope=["v5p"], labels=["TPU v5p"], chunks=list(chunks), profiles=["v5p", "v6e"])


def test_the_shipped_weights_are_the_fit_of_the_dev_halves_and_name_only_features_the_answerer_computes():
    stored = SelectionWeights.model_validate_json((REPO / "sidecar/valid/data/selection-weights.json").read_text())
    assert stored.weights and 0.0 < stored.floor < 1.0
    assert stored.command.startswith("python3 bench/fit_selection.py") and "trapset-cloud-tpu.jsonl" in stored.command
    _, candidates = unit_candidates(_request(QUESTION, _chunk("Chips per VM | 4\nMemory | 95 GiB", "a")))
    produced = {name for c in candidates for name in c.features}
    # Every weighted feature that is not a crossed one-hot is computed for every unit.
    plain = {n for n in stored.weights if "=" not in n}
    assert plain <= produced, plain - produced


def test_the_answerer_uses_the_shipped_weights_and_changing_one_changes_which_unit_answers():
    request = _request(
        "How many chips does a v5p VM have?",
        _chunk("Each v5p VM has 4 chips.", "a"),
        _chunk("A v5p pod has up to 8960 chips in one slice.", "b", title="Pods"),
    )
    shipped = SelectionModel.default()
    assert OfflineExtractive(selector="fitted").selection.weights == shipped.weights

    def first(weights):
        answerer = OfflineExtractive(selector="fitted", selection=SelectionModel(weights, shipped.bias, 0.0))
        return answerer.rank_units(request)[0][1].chunk_id

    assert first(shipped.weights) == "a"
    assert first({**shipped.weights, "chunk_rank": -200.0}) == "b"


def test_the_hand_set_product_is_a_feature_the_fit_weighs_beside_the_general_signals():
    request = _request(
        "How many chips does a v5p VM have?",
        _chunk("Each v5p VM has 4 chips.", "a"),
        _chunk("A v5p pod has up to 8960 chips in one slice.", "b", title="Pods"),
    )
    _, candidates = unit_candidates(request)
    rules = OfflineExtractive(selector="rules").rank_units(request)
    best = max(candidates, key=lambda c: c.features["rules"])
    # The unit the rules rank first is the one whose product is the request's best (gap 0).
    assert (best.unit.chunk_id, best.unit.position) == (rules[0][1].chunk_id, rules[0][1].position)
    assert best.features["rules_gap"] == 0.0 and all(c.features["rules_gap"] <= 0.0 for c in candidates)
    # The product reads the engine's tuning: a weight moved moves the feature.
    from valid.answer.tuning import Tuning

    _, moved = unit_candidates(request, tuning=Tuning(kind_fit=3.0))
    assert [c.features["rules"] for c in moved] != [c.features["rules"] for c in candidates]


def test_a_question_whose_best_unit_is_below_the_floor_is_refused():
    request = _request("How many chips does a v5p VM have?", _chunk("Each v5p VM has 4 chips.", "a"))
    model = SelectionModel({"kind_fits": 1.0}, bias=0.0)
    answered = OfflineExtractive(selector="fitted", selection=model).generate(request)
    assert answered.steps and "4 chips" in answered.steps[0].text
    best = model.probability(unit_candidates(request)[1][0].features)
    floored = OfflineExtractive(selector="fitted", selection=SelectionModel(model.weights, model.bias, floor=best + 0.01))
    refused = floored.generate(request)
    assert refused.steps == [] and refused.answer == ""


def test_a_unit_is_labelled_positive_when_it_holds_every_expected_value_and_no_forbidden_one():
    texts = ["Each VM has 4 chips.", "Chips per host | 8", "The VM has 4 chips and 95 GiB of HBM."]
    assert label_units(texts, [["4 chips", "Chips per VM | 4"]], ["8 chips", "Chips per host | 8"]) == [True, False, True]
    assert label_units(texts, [["4 chips"], "95 GiB"], []) == [False, False, True]


def test_the_fit_recovers_a_signal_that_separates_positives_and_a_floor_that_separates_the_unanswerable():
    examples = [Example(i, {"signal": float(i % 2), "noise": float(i % 3)}, positive=bool(i % 2)) for i in range(60)]
    bias, weights = fit_logistic(examples)
    assert weights["signal"] > 2 * abs(weights.get("noise", 0.0))
    # 200 answerable requests at 0.30..0.99, 3 unanswerable: keeping 99 % refuses the two lowest answerable.
    answerable = [(0.30 + i * 0.0035, True) for i in range(200)]
    floor, kept, n_ok, refused, n_bad = fit_floor(answerable + [(0.1, False), (0.3, False), (0.9, False)])
    assert (kept, n_ok, n_bad) == (198, 200, 3) and 0.3035 < floor < 0.307 and refused == 2


def test_the_fitting_script_runs_and_names_its_inputs():
    done = subprocess.run([sys.executable, str(REPO / "bench/fit_selection.py"), "--help"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO / "sidecar")})
    assert done.returncode == 0 and "--set" in done.stdout and "dev" in done.stdout


def test_an_ask_whose_best_unit_is_below_the_floor_is_refused_not_answered(state, tmp_path):
    shipped = SelectionModel.default()
    strict = OfflineExtractive(selector="fitted", selection=SelectionModel(shipped.weights, shipped.bias, floor=0.999999))
    with open_engine(state, generator=strict, embedder=offline_embedder(), log=False, gap_issues=False) as engine:
        answer = engine.ask(QUESTION).answer
    assert answer.outcome == "refuse" and not answer.answers
    assert _ask(state, tmp_path, offline_embedder())[0].outcome == "answer"  # the shipped floor answers it


def test_a_release_with_no_units_stores_an_empty_matrix_and_reads_it_back(tmp_path):
    # An empty export (--allow-empty) has no unit to embed: the release is still written and read.
    from valid.index import units

    units.write(tmp_path, [], [], "hash-bow@1")
    stored = units.read(tmp_path, "hash-bow@1")
    assert stored is not None and len(stored) == 0 and stored.row("anything") is None
