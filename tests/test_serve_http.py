"""`valid serve` over real HTTP on 127.0.0.1: uvicorn started by the test, the real sample exported
and indexed, the real answer engine (offline, or Gemini through the local fake server where a test
needs a slow answer). Every response is validated against the published docs/openapi.json, and
every error path returns the one error shape.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import jsonschema
import pytest
from fakes.gemini import FakeGemini
from prometheus_client import CONTENT_TYPE_LATEST
from prometheus_client.parser import text_string_to_metric_families

from valid.embed import make_embedder
from valid.index import Store, build_release
from valid.index.activation import activate, active_release_id
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.library import EngineSettings, LibraryReleases
from valid.serve.live import LiveServer, wait_ready

REPO = Path(__file__).resolve().parents[1]
OPENAPI = json.loads((REPO / "docs" / "openapi.json").read_text(encoding="utf-8"))
PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"
UNSCOPED = "How many chips are in one TPU VM?"


# -- fixtures ----------------------------------------------------------------------------------



def index(state: Path, export_path: Path, activate_it: bool = True) -> str:
    return build_release(export_path, make_embedder("offline"), Store(state), activate=activate_it).release_id



@pytest.fixture(scope="module")
def sample(sample_build):
    return sample_build.state, sample_build.release_id, sample_build.export


@contextmanager
def serving(state: Path, *, settings: EngineSettings | None = None, wait: bool = True, wrap=None, **config):
    limits = Limits(**{"rate_per_s": 0, **config.pop("limits", {})})
    source = LibraryReleases(Store(state), settings or EngineSettings())
    app = create_app(
        wrap(source) if wrap else source,
        ServeConfig(limits=limits, **{"release_check_interval_s": 0, **config}),
    )
    with LiveServer(app) as server:
        if wait:
            wait_ready(server.url)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            yield client, app


@pytest.fixture(scope="module")
def api(sample):
    state, _, _ = sample
    with serving(state) as (client, _app):
        yield client


def validate(instance, schema_name: str) -> None:
    """Validate against a component schema of the published docs/openapi.json."""
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": OPENAPI["components"]}
    jsonschema.Draft202012Validator(schema).validate(instance)


def assert_error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    validate(body, "ErrorBody")
    assert body["error"]["code"] == code
    assert body["error"]["request_id"] == response.headers["x-request-id"]
    assert "Traceback" not in response.text and ".py" not in response.text
    return body["error"]


def changed_export(export_path: Path, out: Path, marker: str) -> Path:
    """The same export with one chunk's text changed: a behaviour-relevant input, so a new release."""
    lines = export_path.read_text(encoding="utf-8").splitlines()
    chunk = json.loads(lines[1])
    chunk["text"] += f" ({marker})"
    chunk["digest"] = hashlib.sha256(chunk["text"].encode()).hexdigest()
    out.write_text("\n".join([lines[0], json.dumps(chunk), *lines[2:]]) + "\n", encoding="utf-8")
    return out


def ask(client: httpx.Client, question: str, generation: str | None = None) -> httpx.Response:
    payload = {"question": question} if generation is None else {"question": question, "generation": generation}
    return client.post("/v1/ask", json=payload)


def scope_of(client: httpx.Client, chunk_id: str) -> list[str]:
    path, _, _ = chunk_id.partition("#")
    view = client.get(f"/v1/sources/{path}").json()
    return next(c["scope"] for c in view["chunks"] if c["id"] == chunk_id)


# -- the answer object --------------------------------------------------------------------------


def test_priya_gets_a_tpu7x_answer_object_pinned_to_the_active_release(api, sample):
    _, release, _ = sample
    response = ask(api, PRIYA)
    assert response.status_code == 200, response.text
    body = response.json()
    validate(body, "AnswerObject")
    assert body["scope"] == ["tpu7x"]
    assert "Ironwood" in body["matched"]
    assert body["release"] == release == response.headers["x-valid-release"]
    assert body["outcome"] in ("answer", "refuse")
    for answer in body["answers"]:
        assert answer["generation"] == "tpu7x"
        for step in answer["steps"]:
            assert "tpu7x" in scope_of(api, step["cite"]), f"{step['cite']} is cited for TPU7x but not in its scope"
    assert "v2-alpha-tpuv6e" not in json.dumps(body["answers"])


def test_a_comparison_question_returns_the_compare_outcome_with_each_side_cited_in_its_own_scope(api):
    response = ask(api, "How does the software version differ between TPU v5p and TPU v6e?")
    assert response.status_code == 200, response.text
    body = response.json()
    validate(body, "AnswerObject")
    assert body["outcome"] == "compare" and body["scope"] == ["v5p", "v6e"] and body["answers"] == []
    comparison = body["comparison"]
    assert comparison["generations"] == ["v5p", "v6e"]
    assert any(r["kind"] == "differs" for r in comparison["rows"])
    for row in comparison["rows"]:
        for cell in row["cells"]:
            assert cell["generation"] in scope_of(api, cell["cite"]), (row["topic"], cell)
    # An ordinary answer carries no comparison key at all.
    assert "comparison" not in ask(api, PRIYA).json()


def test_unscoped_question_asks_which_generation_and_the_choice_answers_for_it(api):
    body = ask(api, UNSCOPED).json()
    validate(body, "AnswerObject")
    assert body["outcome"] == "ask"
    assert body["answers"] == []
    choices = {c["generation"]: c["label"] for c in body["choices"]}
    assert choices["tpu7x"] == "TPU7x (Ironwood)"
    scoped = ask(api, UNSCOPED, "v6e").json()
    validate(scoped, "AnswerObject")
    assert scoped["scope"] == ["v6e"]
    assert scoped["outcome"] == "answer"
    cites = [s["cite"] for a in scoped["answers"] for s in a["steps"]]
    assert cites and all("v6e" in scope_of(api, c) for c in cites)
    by_other_name = ask(api, UNSCOPED, "trillium").json()  # any name readers use, as `valid ask -g`
    assert by_other_name["scope"] == ["v6e"] and by_other_name["answers"] == scoped["answers"]


def test_a_generation_the_scheme_does_not_know_is_refused_with_a_gap_issue(api):
    body = ask(api, "Which software version do I use on TPU v4?").json()
    validate(body, "AnswerObject")
    assert body["outcome"] == "refuse"
    assert body["answers"] == []
    assert body["refusal"]["gap_issue"]


def test_active_release_lists_the_generations_of_the_subject_scheme(api, sample):
    response = api.get("/v1/releases/active")
    body = response.json()
    validate(body, "ReleaseInfo")
    assert body["release"] == sample[1]
    assert [g["name"] for g in body["generations"]] == ["v5p", "v6e", "tpu7x"]
    assert body["generations"][2]["label"] == "TPU7x (Ironwood)"


def test_healthz_is_ready_with_the_release_it_verified(api, sample):
    body = api.get("/healthz").json()
    validate(body, "Health")
    assert body == {"status": "ready", "release": sample[1], "question_store": {"state": "ok", "spooled": 0}}


def test_citation_source_view_shows_the_cited_chunk_only_for_its_generation(api):
    answer = ask(api, UNSCOPED, "tpu7x").json()
    cite = answer["answers"][0]["steps"][0]["cite"]
    path, _, anchor = cite.partition("#")
    view = api.get(f"/v1/sources/{path}", params={"generation": "tpu7x"}).json()
    validate(view, "SourceView")
    assert all("tpu7x" in c["scope"] for c in view["chunks"])
    cited = next(c for c in view["chunks"] if c["id"] == cite)
    assert cited["anchor"] == anchor
    everything = api.get(f"/v1/sources/{path}").json()
    assert len(everything["chunks"]) == len(view["chunks"]) + view["hidden"]
    page = api.get(f"/sources/{path}", params={"generation": "tpu7x"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert f'id="{anchor}"' in page.text
    assert "TPU7x (Ironwood)" in page.text


def test_source_page_escapes_text(api, sample):
    # Every chunk text appears escaped: no raw '<' from content can reach the page as markup.
    path = api.get("/v1/sources/runtimes.dita").json()["path"]
    page = api.get(f"/sources/{path}").text
    body = page.split('<main id="main">', 1)[1]
    assert "<script" not in body.lower()


def test_ask_page_and_its_assets_are_served_with_a_strict_policy(api):
    page = api.get("/")
    assert page.status_code == 200
    assert '<label for="question"' in page.text and '<label for="generation"' in page.text
    # In the sample's words (valid.wording): the map's title, and no placeholder left unfilled.
    assert "Ask the Cloud TPU documentation" in page.text and "{{" not in page.text
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    for asset, kind in (("/static/app.js", "javascript"), ("/static/app.css", "text/css")):
        response = api.get(asset)
        assert response.status_code == 200 and kind in response.headers["content-type"]


# -- metrics ------------------------------------------------------------------------------------


def metric_samples(text: str) -> list:
    """Every sample of a /metrics body, read by prometheus_client's own parser."""
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def metric(text: str, name: str, **labels: str) -> float:
    """The value of the one sample with exactly these labels (0 when it has not been counted yet)."""
    return next((s.value for s in metric_samples(text) if s.name == name and s.labels == labels), 0.0)


def documented_metrics() -> set[str]:
    """The metric names the Metrics table of docs/serve.md lists (its first column)."""
    page = (REPO / "docs" / "serve.md").read_text(encoding="utf-8")
    section = page.split("\n## Metrics\n", 1)[1].split("\n## ")[0]
    first_columns = [line.split("|")[1] for line in section.splitlines() if line.startswith("| `")]
    return {name for cell in first_columns for name in re.findall(r"`([a-z_]+)(?:\{[a-z_]+\})?`", cell)}


def test_the_exposition_parses_and_has_every_metric_the_docs_list(api):
    ask(api, UNSCOPED)
    response = api.get("/metrics")
    assert response.headers["content-type"] == CONTENT_TYPE_LATEST
    families = list(text_string_to_metric_families(response.text))
    # The parser drops a counter's _total from its family name; the samples keep it.
    exposed = {f.name + "_total" if f.type == "counter" else f.name for f in families}
    documented = documented_metrics()
    assert len(documented) >= 17, documented  # the table as it stands: a parse that finds fewer is broken
    assert documented <= exposed, f"documented but not exposed: {sorted(documented - exposed)}"
    ours = {name for name in exposed if name.startswith("valid_") and not name.endswith("_created")}
    assert ours <= documented, f"exposed but not documented: {sorted(ours - documented)}"
    kinds = {f.name: f.type for f in families}
    assert kinds["valid_stage_duration_seconds"] == kinds["valid_http_request_duration_seconds"] == "histogram"
    assert kinds["valid_answers"] == kinds["valid_http_requests"] == "counter"
    assert kinds["valid_release_reloads_total"] == kinds["valid_question_store_up"] == "gauge"


def test_metrics_count_requests_outcomes_and_stage_latencies(api):
    before = api.get("/metrics").text
    ask(api, UNSCOPED)
    ask(api, "x" * 5000)
    response = api.get("/metrics")
    assert response.headers["content-type"] == CONTENT_TYPE_LATEST
    after = response.text
    assert metric(after, "valid_answers_total", outcome="ask", degraded="false") == (
        metric(before, "valid_answers_total", outcome="ask", degraded="false") + 1
    )
    assert metric(after, "valid_http_requests_total", route="/v1/ask", method="POST", status="422") >= 1
    for stage in ("queue", "answer", "scope", "retrieve", "total"):
        assert metric(after, "valid_stage_duration_seconds_count", stage=stage) >= 1, stage
    assert metric(after, "valid_ready") == 1
    releases = [s for s in metric_samples(after) if s.name == "valid_release_info"]
    assert len(releases) == 1 and re.fullmatch("[0-9a-f]{64}", releases[0].labels["release"])
    assert releases[0].value == 1
    assert "/x" * 10 not in after, "request data must never become a label"


def test_degraded_answers_are_counted_with_their_fallback(sample, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(sample[0], state)
    with serving(state) as (client, app):
        lease = app.state.holder.acquire()
        store = Store(state)
        store.client.delete_collection(lease.answerer._release.manifest.operational.collection)  # Chroma lost it
        lease.end()
        response = ask(client, UNSCOPED, "v6e")
        assert response.status_code == 200
        validate(response.json(), "AnswerObject")
        text = client.get("/metrics").text
        counted = metric_samples(text)
        degraded = sum(s.value for s in counted if s.name == "valid_answers_total" and s.labels["degraded"] == "true")
        assert degraded == 1
        labels = [s.labels["reason"] for s in counted if s.name == "valid_degraded_total" and s.value == 1]
        assert labels and all("(" not in label and "Error" not in label for label in labels), labels


# -- error paths ----------------------------------------------------------------------------------


def test_question_longer_than_the_limit_is_refused(api):
    error = assert_error(ask(api, "x" * 1001), 422, "question_too_long")
    assert "1000" in error["message"]
    assert ask(api, "why " * 250).status_code == 200  # exactly 1000 characters is allowed


@pytest.mark.parametrize(
    "payload",
    [{}, {"question": ""}, {"question": "   "}, {"question": 42}, {"question": "ok", "extra": 1}, ["not", "an", "object"],
     {"question": "ok", "generation": 7}],
    ids=["missing", "empty", "blank", "number", "extra-field", "array", "generation-number"],
)
def test_request_that_does_not_match_the_schema_is_invalid(api, payload):
    assert_error(api.post("/v1/ask", json=payload), 422, "invalid_request")


def test_body_that_is_not_json_is_invalid(api):
    response = api.post("/v1/ask", content=b"{question: nope", headers={"content-type": "application/json"})
    assert_error(response, 422, "invalid_request")


def test_body_that_is_not_declared_json_is_unsupported(api):
    response = api.post("/v1/ask", content=b"question=hi", headers={"content-type": "application/x-www-form-urlencoded"})
    assert_error(response, 415, "unsupported_media_type")


def test_unknown_generation_parameter_is_refused_before_any_work(api):
    error = assert_error(ask(api, PRIYA, "v4"), 422, "unknown_generation")
    assert "tpu7x" in error["message"]
    assert_error(api.get("/v1/sources/runtimes.dita", params={"generation": "v4"}), 422, "unknown_generation")


def test_body_larger_than_the_limit_is_refused_declared_or_streamed(api):
    big = json.dumps({"question": "x" * 20_000}).encode()
    assert_error(api.post("/v1/ask", content=big, headers={"content-type": "application/json"}), 413, "body_too_large")

    def chunks():  # no Content-Length: the limit must hold on the stream itself
        for _ in range(40):
            yield b" " * 1024

    response = api.post("/v1/ask", content=chunks(), headers={"content-type": "application/json"})
    assert_error(response, 413, "body_too_large")


def test_unknown_paths_sources_and_methods(api):
    assert_error(api.get("/v1/nothing"), 404, "not_found")
    assert_error(api.get("/v1/sources/no/such/file.dita"), 404, "not_found")
    assert_error(api.get("/static/missing.js"), 404, "not_found")
    response = api.get("/v1/ask")
    assert_error(response, 405, "method_not_allowed")
    assert "POST" in response.headers["allow"]


def test_cors_is_off_by_default(api):
    preflight = api.options(
        "/v1/ask", headers={"origin": "http://example.test", "access-control-request-method": "POST"}
    )
    assert "access-control-allow-origin" not in preflight.headers
    response = api.get("/healthz", headers={"origin": "http://example.test"})
    assert "access-control-allow-origin" not in response.headers


def test_cors_allows_only_the_configured_origin(sample):
    with serving(sample[0], cors_origins=("http://docs.example.test",)) as (client, _):
        allowed = client.options(
            "/v1/ask", headers={"origin": "http://docs.example.test", "access-control-request-method": "POST"}
        )
        assert allowed.headers["access-control-allow-origin"] == "http://docs.example.test"
        other = client.get("/healthz", headers={"origin": "http://evil.example.test"})
        assert "access-control-allow-origin" not in other.headers


def test_rate_limit_per_client_answers_429_with_retry_after(sample):
    with serving(sample[0], limits={"rate_per_s": 0.01, "rate_burst": 2}) as (client, _):
        assert ask(client, UNSCOPED).status_code == 200
        assert ask(client, UNSCOPED).status_code == 200
        response = ask(client, UNSCOPED)
        assert_error(response, 429, "rate_limited")
        assert int(response.headers["retry-after"]) >= 1
        assert client.get("/healthz").status_code == 200, "probes are not rate limited"


def test_not_ready_until_a_release_is_active_then_ready_without_restart(sample, tmp_path):
    state = tmp_path / "state"
    with serving(state, wait=False) as (client, _):
        assert_error(client.get("/healthz"), 503, "not_ready")
        response = ask(client, PRIYA)
        assert_error(response, 503, "not_ready")
        assert response.headers["retry-after"] == "1"
        assert_error(client.get("/v1/releases/active"), 503, "not_ready")
        release = index(state, sample[2])
        body = wait_ready(str(client.base_url))
        assert body["release"] == release
        assert ask(client, PRIYA).json()["release"] == release


class Buggy:
    """Wraps the real release source; its answerer raises on one question, standing in for a bug."""

    def __init__(self, inner):
        self.inner = inner

    def active_id(self):
        return self.inner.active_id()

    def open(self, release_id):
        answerer = self.inner.open(release_id)
        real_ask = answerer.ask

        def ask(question, generation):
            if question == "trigger the bug":
                raise RuntimeError("secret detail: /srv/state/releases")
            return real_ask(question, generation)

        answerer.ask = ask
        return answerer


def test_an_internal_error_is_a_json_500_without_a_traceback(sample, caplog):
    with serving(sample[0], wrap=Buggy) as (client, _):
        with caplog.at_level("ERROR", logger="valid.serve"):
            response = ask(client, "trigger the bug")
        error = assert_error(response, 500, "internal")
        assert error["message"] == "internal error; see the server log"
        assert "secret" not in response.text
        assert any(r.exc_info and "secret detail" in str(r.exc_info[1]) for r in caplog.records), "the log has it"
        assert ask(client, PRIYA).status_code == 200, "one failed request does not take the service down"
        assert metric(client.get("/metrics").text, "valid_http_requests_total", route="/v1/ask", method="POST",
                      status="500") == 1


# -- slow answers: the real engine with Gemini behind the local fake server -----------------------


class Gate:
    """A fake Gemini whose answers wait until the test opens the gate."""

    def __init__(self, fake: FakeGemini):
        self.fake = fake
        self.entered = threading.Event()
        self.open = threading.Event()
        fake.generate = self._generate

    def _generate(self, body):
        self.entered.set()
        self.open.wait(30)
        # An answer without steps: the engine refuses it at once (no revision), on its pinned release.
        return FakeGemini.text_response(json.dumps({"scope": ["tpu7x"], "answer": "", "steps": []}))


@pytest.fixture
def gemini(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    with FakeGemini() as fake:
        gate = Gate(fake)
        yield gate
        gate.open.set()


def gemini_settings(gate: Gate) -> EngineSettings:
    return EngineSettings(generator="gemini", gemini_base_url=gate.fake.base_url)


def in_background(fn):
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("value", fn()), daemon=True)
    thread.start()
    return thread, result


def test_saturated_service_answers_503_with_retry_after_and_recovers(sample, gemini):
    limits = {"max_inflight": 1, "max_queue": 0}
    with serving(sample[0], settings=gemini_settings(gemini), limits=limits) as (client, _):
        thread, result = in_background(lambda: ask(client, PRIYA))
        assert gemini.entered.wait(30)
        response = ask(client, PRIYA)
        assert_error(response, 503, "saturated")
        assert int(response.headers["retry-after"]) >= 1
        assert client.get("/healthz").status_code == 200, "probes still answer when asks are saturated"
        gemini.open.set()
        thread.join(30)
        assert result["value"].status_code == 200
        assert ask(client, PRIYA).status_code == 200


def test_an_answer_past_the_request_timeout_is_a_504(sample, gemini):
    with serving(sample[0], settings=gemini_settings(gemini), limits={"request_timeout_s": 0.5}) as (client, _):
        error = assert_error(ask(client, PRIYA), 504, "timeout")
        assert "0.5" in error["message"]
        gemini.open.set()


def test_request_finishes_on_the_release_it_started_with(sample, gemini, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(sample[0], state)
    old = active_release_id(Store(state))
    new = index(state, changed_export(sample[2], tmp_path / "changed.jsonl", "new"), activate_it=False)
    assert new != old
    with serving(state, settings=gemini_settings(gemini)) as (client, _):
        thread, result = in_background(lambda: ask(client, PRIYA, "tpu7x"))
        assert gemini.entered.wait(30)
        activate(Store(state), new, expected=old)
        deadline = time.monotonic() + 30
        while client.get("/v1/releases/active").json()["release"] != new:
            assert time.monotonic() < deadline, "the new release was not picked up"
            time.sleep(0.05)
        gemini.open.set()
        thread.join(30)
        pinned = result["value"]
        assert pinned.status_code == 200
        assert pinned.json()["release"] == old == pinned.headers["x-valid-release"]
        fresh = ask(client, UNSCOPED, "v6e")
        assert fresh.json()["release"] == new


def test_a_release_that_fails_to_open_leaves_the_old_one_serving(sample, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(sample[0], state)
    store = Store(state)
    old = active_release_id(store)
    with serving(state) as (client, _):
        broken = index(state, changed_export(sample[2], tmp_path / "changed.jsonl", "broken"), activate_it=False)
        assert broken != old
        (store.release_dir(broken) / "fts.sqlite").unlink()  # damaged after registration
        activate(store, broken, expected=old)
        deadline = time.monotonic() + 30
        while metric(client.get("/metrics").text, "valid_release_reloads_total", result="failed") < 1:
            assert time.monotonic() < deadline, "the failed reload was not counted"
            time.sleep(0.05)
        assert client.get("/healthz").json()["release"] == old
        assert ask(client, PRIYA).json()["release"] == old
