"""Provider spy: every chunk a request discloses is in that request's own scope, and the spy sees a leak.

Every chunk of the answer fixture carries a unique marker (MARK-<owner>-<n>), so a chunk can be
recognised wherever its text goes. For each question (scoped, two generations, shared content, ask,
refusals, revisions, a degraded search), the spy records what the request disclosed to the
generator (offline, or Gemini through the fake server), to the query embedder and in its
question-log row, and `check_ask` (fixtures/answer/spy.py) holds each disclosure against the
export's own scope table: a chunk given to a generation request is kept by every profile of that
request, a profile's retrieval lists only chunks of that profile, the embedder sees no chunk text.

The mutation control plants the bug the spy exists for: the release handle's scope filter dropped
from both channels (Chroma `where`, the FTS5 scope clause; one profile's and the routing union's),
together with the handle's fail-closed id check and the scope the handle reports for the chunks it
returns (the last line of defence in retrieval, and routing's split by generation, read it). Under that mutation the same questions must make the spy report out-of-scope
chunks at the generator and in the log; if they did not, the spy would be blind to the leak it is
there to catch.
"""

import json
import re

import pytest
from fakes.gemini import FakeGemini
from fixtures.answer.export import NAMES, build_export
from fixtures.answer.index import build_state, offline_embedder
from fixtures.answer.model import ScriptedModel
from fixtures.answer.spy import Disclosures, ScopeTruth, SpyEmbedder, SpyGenerator, check_ask

from valid.answer.wiring import open_engine
from valid.answer.generate import GeminiGenerator, OfflineExtractive

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
    "What changed in the software version from TPU v5p to TPU v6e?",  # comparison: two generations' chunks
    "Is TensorFlow supported on Ironwood?",  # availability: one generation's chunks
]
EXPECTED = ["answer", "answer", "answer", "compare", "ask", "answer", "refuse", "refuse", "answer", "refuse", "compare", "compare"]


def adversary(draft, request, call):
    if "REVISE-FOREVER" in request.question or ("HBM" in request.question and not request.revision):
        return {**draft, "steps": [{"text": "Pass --version=made-up-1 to create it.", "cite": request.aliases[0]}]}
    return None


@pytest.fixture(scope="module")
def export():
    return build_export(markers=True, extra=DELETE)


@pytest.fixture(scope="module")
def truth(export):
    return ScopeTruth.of(export)


@pytest.fixture(scope="module")
def state(tmp_path_factory, export):
    return build_state(tmp_path_factory.mktemp("spy"), export)


@pytest.fixture(scope="module")
def server():
    with FakeGemini() as running:
        yield running


def make_generator(kind, server):
    if kind == "offline":
        return OfflineExtractive()
    ScriptedModel(server, adversary=adversary)
    return GeminiGenerator(api_key="test-key", base_url=server.base_url, backoff_s=0.001)


def ask_all(engine, generator, spy, server, questions=QUESTIONS):
    """Ask each question and return what each request disclosed, as the spies saw it."""
    seen = []
    for question in questions:
        server.requests.clear()
        spy.texts.clear()
        generator.requests.clear()
        result = engine.ask(question)
        seen.append(
            (
                result,
                Disclosures(
                    question=question,
                    answer=result.answer,
                    generations=list(generator.requests),
                    wire=[(r.method, r.body) for r in server.requests],
                    embedded=list(spy.texts),
                    log_row=engine.log.rows()[-1],
                ),
            )
        )
    return seen


@pytest.mark.parametrize(
    "kind, degraded",
    [("offline", False), ("gemini", False), ("gemini", True)],
    ids=["offline", "gemini", "gemini-embedder-down"],
)
def test_every_chunk_a_request_discloses_is_in_that_requests_own_scope(state, truth, server, tmp_path, kind, degraded):
    generator = SpyGenerator(make_generator(kind, server))
    spy = SpyEmbedder(offline_embedder(), fail=degraded)
    with open_engine(state, generator=generator, embedder=spy, issues_dir=tmp_path / "issues", log_path=tmp_path / "q.sqlite") as engine:
        seen = ask_all(engine, generator, spy, server)
    for result, disclosures in seen:
        assert check_ask(truth, disclosures) == [], disclosures.question
        if degraded and result.answer.outcome != "refuse":
            assert result.degraded and any("BM25 only" in r for r in result.degraded_reasons)
    outcomes = [result.answer.outcome for result, _ in seen]
    expected = list(EXPECTED)
    if degraded:
        expected[5] = outcomes[5]  # BM25 alone may not see that only shared content answers: ask or answer
    assert outcomes == expected
    # The spy can see: in-scope chunks of every kind did reach the generator (and, for Gemini, the wire).
    given = {c.id for _, d in seen for r in d.generations for c in r.chunks}
    # A comparison's writer gets the chunks its cells cite, per side, as its log row records them.
    given |= {
        c["id"]
        for _, d in seen
        if d.answer.outcome == "compare"
        for attempts in d.log_row["sent"].values()
        for attempt in attempts
        for c in attempt
    }
    assert {truth.scope[i] for i in given} >= {frozenset({p}) for p in NAMES} | {frozenset(NAMES)}
    if kind == "gemini":
        on_wire = {i for _, d in seen for _, body in d.wire for i in truth.chunks_named_in(json.dumps(body))}
        assert on_wire == given
    # Byte for byte, the log file and the gap-issue store hold no chunk text beyond what answers
    # showed: they record chunk ids, scopes and scores, never chunk texts.
    shown = {m for _, d in seen for m in re.findall(r"MARK-\w+-\d+", d.answer.model_dump_json())}
    raw = (tmp_path / "q.sqlite").read_bytes().decode("latin-1") + "".join(
        p.read_text() for p in (tmp_path / "issues").iterdir()
    )
    assert set(re.findall(r"MARK-\w+-\d+", raw)) <= shown


def drop_scope_filter(monkeypatch, release):
    """The planted mutation: the release handle searches every chunk, whatever the profile.

    Both channels lose their scope clause (Chroma gets no `where`; the FTS5 scope column becomes
    the constant 1, which also empties the handle's fail-closed id check), and the chunks the
    handle returns claim every profile, so retrieval's last-line drop has nothing to drop.
    """
    from valid.index import fts, vectors

    monkeypatch.setattr(vectors, "scope_filter", lambda profile: None)
    monkeypatch.setattr(vectors, "scope_filter_any", lambda profiles: None)  # routing a question naming none
    monkeypatch.setattr(fts, "column", lambda profile: "1")
    fetch = release.get_chunks

    def claiming_every_profile(ids):
        return [c.model_copy(update={"scope": {p: True for p in c.scope}}) for c in fetch(ids)]

    monkeypatch.setattr(release, "get_chunks", claiming_every_profile)


@pytest.mark.parametrize("kind", ["offline", "gemini"])
def test_the_spy_fails_when_the_scope_filter_is_dropped(state, truth, server, tmp_path, monkeypatch, kind):
    generator = SpyGenerator(make_generator(kind, server))
    spy = SpyEmbedder(offline_embedder())
    with open_engine(state, generator=generator, embedder=spy, issues_dir=tmp_path / "issues", log_path=tmp_path / "q.sqlite") as engine:
        drop_scope_filter(monkeypatch, engine.release)
        seen = ask_all(engine, generator, spy, server)
    problems = [p for _, d in seen for p in check_ask(truth, d)]
    # The leak is seen where it matters: at the generator, in the log and (for Gemini) on the wire.
    assert any(p.startswith("generation request") for p in problems), problems
    assert any(p.startswith("question log: retrieval") for p in problems), problems
    if kind == "gemini":
        assert any(p.startswith("model request") for p in problems), problems
    # Every scoped question that reached a generator leaked: an unfiltered top 5 of this fixture
    # always holds another generation's chunk.
    leaking = {d.question for _, d in seen if any(p.startswith("generation request") for p in check_ask(truth, d))}
    assert "Which frameworks are supported on TPU v5p?" in leaking
    # A question that names no generation is routed over every generation: each one's share of the
    # routing hits, as logged, holds other generations' chunks.
    # A comparison under the mutation is seen too: its sides' retrievals and cells hold other
    # generations' chunks.
    comparing = {d.question for _, d in seen if d.answer.outcome == "compare" and check_ask(truth, d)}
    assert "What changed in the software version from TPU v5p to TPU v6e?" in comparing
    routed = {d.question for _, d in seen if any(p.startswith("question log: retrieval") for p in check_ask(truth, d))}
    assert "How many chips per host?" in routed
