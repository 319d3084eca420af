"""Provider spy: no out-of-scope content reaches the query embedder, the model, or the log.

Every chunk profiled for exactly one generation carries a unique marker (MARK-<profile>-<n>);
shared chunks carry MARK-shared-<n>. Across questions of every kind (scoped, two generations,
shared content, ask, refusals, revisions, a degraded search), a marker of generation P may appear
in what the embedder, the fake Gemini or the question log received only when the answer is for P.
"""

import json
import re

import pytest
from fakes.gemini import FakeGemini
from fixtures.answer.export import NAMES, build_export
from fixtures.answer.index import build_state, offline_embedder
from fixtures.answer.model import ScriptedModel

from valid.answer.engine import open_engine
from valid.answer.generate import GeminiGenerator

DELETE = [
    ("delete-tpu-vm.dita#delete-tpu-vm/body", "Delete a TPU VM", "body", NAMES,
     "Delete a TPU VM when you no longer need it, so that you stop paying for it. Deleting a VM also deletes its boot disk."),
    ("delete-tpu-vm.dita#delete-tpu-vm/steps", "Delete a TPU VM", "steps", NAMES,
     "1. Delete the TPU VM.\n   gcloud compute tpus tpu-vm delete ${TPU_NAME} --zone=${ZONE}"),
]

QUESTIONS = [
    "I'm on Ironwood. Which --version do I pass when I create the VM?",
    "How many chips are in one TPU v6e VM?",
    "Which frameworks are supported on TPU v5p?",
    "Compare chips per VM: Trillium vs Ironwood.",
    "How many chips per host?",  # ask
    "How do I delete a TPU VM?",  # shared content only
    "How many chips does a TPU v4 VM have?",  # unknown generation
    "What is the price of Trillium per chip-hour?",  # nothing relevant in scope
    "How much HBM does each TPU7x chip have?",  # first draft invents a flag: revision
    "Can I use TensorFlow on v5p? REVISE-FOREVER",  # every draft fails: refusal after revisions
]
MARKER = re.compile(r"MARK-(v5p|v6e|tpu7x|shared)-\d+")


class SpyEmbedder:
    def __init__(self, inner, fail=False):
        self.inner = inner
        self.fail = fail
        self.id = inner.id
        self.dimension = inner.dimension
        self.texts = []

    def embed_query(self, text):
        self.texts.append(text)
        if self.fail:
            raise RuntimeError("embedder down")
        return self.inner.embed_query(text)


def adversary(draft, request, call):
    if "REVISE-FOREVER" in request.question or ("HBM" in request.question and not request.revision):
        return {**draft, "steps": [{"text": "Pass --version=made-up-1 to create it.", "cite": request.aliases[0]}]}
    return None


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    return build_state(tmp_path_factory.mktemp("spy"), build_export(markers=True, extra=DELETE))


@pytest.fixture(scope="module")
def server():
    with FakeGemini() as running:
        yield running


def allowed(answer) -> set[str]:
    return {"shared", *answer.scope}


def markers(text: str) -> set[str]:
    return set(MARKER.findall(text))


@pytest.mark.parametrize("degraded", [False, True], ids=["hybrid", "embedder-down"])
def test_no_out_of_scope_marker_reaches_the_embedder_the_model_or_the_log(state, server, tmp_path, degraded):
    model = ScriptedModel(server, adversary=adversary)
    spy = SpyEmbedder(offline_embedder(), fail=degraded)
    generator = GeminiGenerator(api_key="test-key", base_url=server.base_url, backoff_s=0.001)
    seen_in_prompts: set[str] = set()
    shown: set[str] = set()  # markers of in-scope content that answers showed to readers
    outcomes = []
    with open_engine(state, generator=generator, embedder=spy, issues_dir=tmp_path / "issues", log_path=tmp_path / "q.sqlite") as engine:
        for question in QUESTIONS:
            server.requests.clear()
            spy.texts.clear()
            result = engine.ask(question)
            answer = result.answer
            outcomes.append(answer.outcome)
            ok = allowed(answer)
            prompts = [json.dumps(r.body) for r in server.requests]
            for prompt in prompts:
                found = markers(prompt)
                seen_in_prompts |= found
                assert found <= ok, (question, found - ok)
            assert not markers(" ".join(spy.texts)), question
            row = engine.log.rows()[-1]
            assert markers(json.dumps(row)) <= ok, question
            shown |= set(re.findall(r"MARK-\w+-\d+", answer.model_dump_json()))
            if degraded and answer.outcome != "refuse":
                assert result.degraded and any("BM25 only" in r for r in result.degraded_reasons)
    expected = ["answer", "answer", "answer", "answer", "ask", "answer", "refuse", "refuse", "answer", "refuse"]
    if degraded:
        expected[5] = outcomes[5]  # BM25 alone may not see that only shared content answers: ask or answer
    assert outcomes == expected
    # The spy can see markers: in-scope content did reach the model.
    assert {"tpu7x", "v6e", "v5p", "shared"} <= seen_in_prompts
    # Byte for byte, the log file and the gap-issue store hold no marker beyond what answers showed:
    # they record chunk ids, scopes and scores, never chunk texts.
    raw = (tmp_path / "q.sqlite").read_bytes().decode("latin-1") + "".join(
        p.read_text() for p in (tmp_path / "issues").iterdir()
    )
    assert set(re.findall(r"MARK-\w+-\d+", raw)) <= shown
