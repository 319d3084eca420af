"""The Gemini embedder through the real google-genai client, against the local fake server."""

import math

import pytest

from fakes.gemini import FakeGemini
from valid.embed import make_embedder
from valid.embed.gemini import GeminiEmbedder
from valid.errors import ConfigError, ProviderError


@pytest.fixture
def fake():
    with FakeGemini() as server:
        yield server


def embedder_for(fake, **options) -> GeminiEmbedder:
    return GeminiEmbedder(api_key="test-key", base_url=fake.base_url, attempts=1, **options)


def test_documents_are_sent_as_retrieval_document_with_the_model_and_dimension(fake):
    embedder = embedder_for(fake, model="gemini-embedding-001", dimension=16)
    vectors = embedder.embed_documents(["Create a TPU VM", "Delete a queued resource"])
    assert len(vectors) == 2 and all(len(v) == 16 for v in vectors)
    (request,) = fake.requests
    assert (request.method, request.model, request.version) == ("batchEmbedContents", "gemini-embedding-001", "v1beta")
    assert [r["taskType"] for r in request.body["requests"]] == ["RETRIEVAL_DOCUMENT"] * 2
    assert [r["outputDimensionality"] for r in request.body["requests"]] == [16, 16]
    assert [r["content"]["parts"][0]["text"] for r in request.body["requests"]] == ["Create a TPU VM", "Delete a queued resource"]
    assert not fake.errors


def test_queries_are_sent_as_retrieval_query(fake):
    embedder_for(fake, dimension=8).embed_query("how do I create a v6e VM?")
    (request,) = fake.requests
    assert request.body["requests"][0]["taskType"] == "RETRIEVAL_QUERY"
    assert request.body["requests"][0]["outputDimensionality"] == 8


def test_vectors_are_normalised_to_unit_length(fake):
    fake.embed = lambda body: {"embeddings": [{"values": [3.0, 4.0]} for _ in body["requests"]]}
    assert embedder_for(fake, dimension=2).embed_query("x") == pytest.approx([0.6, 0.8])


def test_documents_go_in_batches_of_at_most_100(fake):
    vectors = embedder_for(fake, dimension=4).embed_documents([f"text {i}" for i in range(230)])
    assert len(vectors) == 230
    assert [len(r.body["requests"]) for r in fake.requests] == [100, 100, 30]
    assert all(math.isclose(sum(v * v for v in vec), 1.0, rel_tol=1e-9) for vec in vectors)


def test_missing_api_key_is_a_one_line_config_error(monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ConfigError) as caught:
        make_embedder("gemini")
    assert "GEMINI_API_KEY" in str(caught.value) and "\n" not in str(caught.value)


def test_google_api_key_is_used_when_gemini_api_key_is_absent(fake, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    GeminiEmbedder(base_url=fake.base_url, dimension=4).embed_query("x")
    assert fake.requests[0].headers["x-goog-api-key"] == "test-key"


def test_a_vector_of_the_wrong_dimension_is_refused(fake):
    fake.embed = lambda body: {"embeddings": [{"values": [1.0, 0.0, 0.0]} for _ in body["requests"]]}
    with pytest.raises(ProviderError, match="3-dimensional vectors, expected 8"):
        embedder_for(fake, dimension=8).embed_documents(["a"])


def test_a_server_error_is_retried_then_reported_in_one_line_as_a_provider_error(fake):
    fake.embed = lambda body: (503, {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}})
    embedder = GeminiEmbedder(api_key="test-key", base_url=fake.base_url, attempts=2, dimension=8)
    with pytest.raises(ProviderError, match="HTTP 503") as caught:
        embedder.embed_documents(["a"])
    assert "\n" not in str(caught.value)
    assert len(fake.requests) == 2  # 5xx is retried, a bounded number of times, before it is reported


def test_wrong_api_key_is_reported_as_a_key_problem(fake):
    embedder = GeminiEmbedder(api_key="wrong", base_url=fake.base_url, attempts=1, dimension=4)
    with pytest.raises(ConfigError, match="API key"):
        embedder.embed_query("x")


def test_the_embedder_identity_names_the_model(fake):
    embedder = embedder_for(fake, model="gemini-embedding-001", dimension=32)
    assert (embedder.id, embedder.dimension) == ("gemini/gemini-embedding-001", 32)
