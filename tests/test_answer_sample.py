"""Three answer scenarios on the bundled sample, the Ironwood --version question among them.

The sample is exported with `valid export`, indexed into a real release (Chroma + FTS5, offline
embedder), and each scenario runs twice: with the offline answerer and through the real
google-genai client against the fake Gemini server (a scripted model that answers from the
sources it is sent).

Scenario 1: a scoped question passes cleanly (one draft, checks pass).
Scenario 2: "I'm on Ironwood. Which --version do I pass when I create the VM?" The filter
keeps v6e and v5p out; the model's first draft carries a --version flag from its own training, the
grounding check stops it, the revision passes: two model calls, zero chunks from another generation.
Scenario 3: no generation named, so VALID asks.
"""

from pathlib import Path

import pytest
from fakes.gemini import FakeGemini
from fixtures.answer.index import offline_embedder
from fixtures.answer.model import ScriptedModel

from valid.answer.wiring import open_engine
from valid.answer.generate import GeminiGenerator

ROOT = Path(__file__).resolve().parent.parent
PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"
OTHER_VALUES = ["v2-alpha-tpuv6e", "v2-alpha-tpuv5", "v6e-8", "v5p-8"]


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    from valid.export import export
    from valid.index import Store, build_release

    work = tmp_path_factory.mktemp("sample")
    out = work / "chunks.jsonl"
    export(ROOT / "sample_maps" / "cloud-tpu.ditamap", scheme=ROOT / "schemes" / "tpu-generations.ditamap", out=out)
    build_release(out, offline_embedder(), Store(work / "state"))
    return work / "state"


@pytest.fixture(scope="module")
def server():
    with FakeGemini() as running:
        yield running


@pytest.fixture(params=["offline", "gemini"])
def run(request, state, server, tmp_path):
    """ask(question, adversary=None) -> (answer, log row, model or None) with one generator kind."""

    def ask(question, adversary=None):
        server.requests.clear()
        model = None
        generator = "offline"
        if request.param == "gemini":
            model = ScriptedModel(server, adversary=adversary)
            generator = GeminiGenerator(api_key="test-key", base_url=server.base_url, backoff_s=0.001)
        with open_engine(state, generator=generator, embedder=offline_embedder(), issues_dir=tmp_path / "issues",
                         log_path=tmp_path / "q.sqlite") as engine:  # fmt: skip
            answer = engine.ask(question).answer
            row = engine.log.rows()[-1]
            scopes = {c.id: c.in_scope() for c in engine.release.get_chunks(engine.release.all_chunk_ids())}
        return answer, row, model, scopes

    ask.kind = request.param
    return ask


def sent_ids(row):
    return [c["id"] for key in row["sent"] for attempt in row["sent"][key] for c in attempt]


def text_of(answer):
    return " ".join(a.answer + " " + " ".join(s.text for s in a.steps) for a in answer.answers)


def test_scenario_1_a_scoped_question_passes_cleanly(run):
    answer, row, model, scopes = run("How many chips are in one TPU v6e VM?")
    assert answer.outcome == "answer" and answer.scope == ["v6e"]
    assert answer.checks["passed"] and answer.checks["revisions"] == 0 and answer.run.calls == 1
    assert "8 chips" in text_of(answer) or "Chips per host | 8" in text_of(answer)
    assert all("v6e" in scopes[i] for i in sent_ids(row))
    assert all("v6e" in scopes[s.cite] for a in answer.answers for s in a.steps)


def invent_version_flag(draft, request, call):
    if call == 1:  # the first draft carries a flag from the model's training, not from the context
        return {**draft, "steps": [{"text": "Create the VM with gcloud and pass --version=tpu-vm-tpu7x-base.",
                                    "cite": request.aliases[0]}, *draft["steps"]]}  # fmt: skip
    return None


def test_scenario_2_priya_gets_the_tpu7x_procedure_and_no_other_generation_reaches_the_model(run):
    answer, row, model, scopes = run(PRIYA, invent_version_flag)
    assert answer.outcome == "answer"
    assert answer.scope == ["tpu7x"] and answer.matched == ["Ironwood"]
    (only,) = answer.answers
    assert only.generation == "tpu7x"
    # Zero chunks from another generation were sent, on any attempt.
    assert sent_ids(row) and all("tpu7x" in scopes[i] for i in sent_ids(row))
    assert all("tpu7x" in scopes[s.cite] for s in only.steps)
    text = text_of(answer)
    assert not any(value in text for value in OTHER_VALUES)
    assert "Compute Engine" in text or "GKE" in text
    assert answer.checks["passed"] and answer.checks["out_of_scope_values"] == 0
    assert "TPU v5p" in answer.not_used and "TPU v6e (Trillium)" in answer.not_used
    if run.kind == "gemini":
        # The invented flag was caught by the grounding check; the revision passed: two model calls.
        first = row["checks"]["tpu7x"][0]
        assert any(f["check"] == "values_grounded" and "--version=tpu-vm-tpu7x-base" in f["reason"] for f in first["failures"])
        assert answer.run.calls == 2 and answer.checks["revisions"] == 1
        assert answer.run.tokens_in == 2 * model.tokens_in and answer.run.cost_usd > 0
        assert not any(v in p for p in model.prompts for v in OTHER_VALUES if v != "v2-alpha-tpuv6e")


def test_scenario_3_no_generation_named_so_valid_asks(run):
    answer, row, model, scopes = run("How many chips per host?")
    assert answer.outcome == "ask" and answer.answers == [] and answer.run.calls == 0
    assert [(c.generation, c.label) for c in answer.choices] == [
        ("v5p", "TPU v5p"),
        ("v6e", "TPU v6e (Trillium)"),
        ("tpu7x", "TPU7x (Ironwood)"),
    ]
    assert row["sent"] == {}  # nothing reached a model


def test_no_wrong_generation_answer_on_the_sample_trap_set(state, tmp_path):
    from valid.evaluate.score import score_cell
    from valid.evaluate.trapset import load_trapset

    questions = load_trapset(ROOT / "sidecar" / "valid" / "data" / "trapset-cloud-tpu.jsonl")
    with open_engine(state, embedder=offline_embedder(), issues_dir=tmp_path / "issues", log=False) as engine:
        scopes = {c.id: set(c.in_scope()) for c in engine.release.get_chunks(engine.release.all_chunk_ids())}
        cells = [score_cell(q, "valid", engine.ask(q.question).answer.model_dump(mode="json"), scopes) for q in questions]
    wrong = [(c.question_id, c.reasons) for c in cells if c.category == "wrong_generation"]
    assert wrong == []
    by = lambda stratum, category: sum(c.stratum == stratum and c.category == category for c in cells)  # noqa: E731
    of = lambda stratum: sum(c.stratum == stratum for c in cells)  # noqa: E731
    # A regression guard over both halves (the issue's 90% bar is read on the test half, in
    # docs/scorecard.md): the blind dev questions added later include one fact (what the number
    # of an accelerator type counts) on which VALID also offers TPU7x, ten times, and questions
    # that narrow by a condition ("for the generations with a 3D torus"); 83% at this writing.
    assert by("unscoped", "asked") >= 0.8 * of("unscoped")
    assert by("out-of-domain", "refused") == of("out-of-domain")
    assert by("scoped", "right") >= 0.9 * of("scoped")  # the gate's bar; the rest refused, none wrong
