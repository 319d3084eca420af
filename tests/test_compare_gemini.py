"""The Gemini writer of a comparison, through the real google-genai client against the fake server:
prose from the computed difference only, each statement checked against its own generation."""

import json

import pytest
from fakes.gemini import FakeGemini
from fixtures.answer.index import offline_embedder
from fixtures.answer.model import ScriptedModel

from valid.answer.wiring import open_engine
from valid.answer.generate import GeminiGenerator

QUESTION = "Which software version replaced v2-alpha-tpuv5 on v6e?"


@pytest.fixture(scope="module")
def server():
    with FakeGemini() as running:
        yield running


@pytest.fixture
def ask(sample_build, server, tmp_path):
    def run(question=QUESTION, adversary=None):
        server.requests.clear()
        model = ScriptedModel(server, compare_adversary=adversary)
        generator = GeminiGenerator(api_key="test-key", base_url=server.base_url, backoff_s=0.001)
        with open_engine(sample_build.state, generator=generator, embedder=offline_embedder(),
                         issues_dir=tmp_path / "issues", log_path=tmp_path / "q.sqlite") as engine:  # fmt: skip
            return engine.ask(question).answer, model, [r.body for r in server.requests]

    return run


def test_the_request_carries_the_computed_rows_fenced_sources_and_enum_locked_sides(ask):
    answer, model, bodies = ask()
    assert answer.outcome == "compare" and answer.run.calls == 1
    (body,) = bodies
    schema = body["generationConfig"]["responseSchema"]["properties"]["statements"]["items"]["properties"]
    assert schema["generation"]["enum"] == ["v5p", "v6e"]
    assert schema["cite"]["enum"] == [f"c{i}" for i in range(1, len(schema["cite"]["enum"]) + 1)]
    prompt = body["contents"][0]["parts"][0]["text"]
    assert "COMPUTED COMPARISON:" in prompt and "values v2-alpha-tpuv5" in prompt and "values v2-alpha-tpuv6e" in prompt
    assert body["generationConfig"]["temperature"] == 0
    assert "comparison of product documentation" in json.dumps(body["systemInstruction"])
    # The model's statements were checked and kept, each with its own generation's chunk.
    assert answer.comparison.summary == "The generations differ as the table shows."
    assert answer.comparison.statements and all(
        s.generation in ("v5p", "v6e") and s.cite for s in answer.comparison.statements
    )
    assert answer.checks["passed"] is True


def test_a_statement_giving_one_side_the_others_value_is_revised(ask):
    def wrong_side(response, sources, call):
        if call == 1:
            alias = next(a for a, (owners, _) in sources.items() if owners == ["v5p"])
            return {"summary": "v5p now uses v2-alpha-tpuv6e.",
                    "statements": [{"generation": "v5p", "text": "Pass v2-alpha-tpuv6e.", "cite": alias}]}  # fmt: skip
        return None

    answer, model, bodies = ask(adversary=wrong_side)
    assert len(bodies) == 2 and answer.checks["revisions"] == 1
    revision = bodies[1]["contents"][0]["parts"][0]["text"]
    assert "belongs to v6e, not v5p" in revision and "is not stated by" in revision
    assert "v2-alpha-tpuv6e" not in " ".join(s.text for s in answer.comparison.statements if s.generation == "v5p")


def test_prose_that_keeps_failing_is_dropped_and_the_computed_summary_stands(ask):
    def always_wrong(response, sources, call):
        return {"summary": "Both use v2-alpha-tpuv9.", "statements": []}

    answer, model, bodies = ask(adversary=always_wrong)
    assert len(bodies) == 3  # the first draft and two revisions
    assert "v2-alpha-tpuv9" not in answer.comparison.summary and answer.comparison.statements == []
    assert answer.outcome == "compare" and "failed its checks" in answer.not_used
