"""Progress events: `POST /v1/ask` with `Accept: text/event-stream` over real HTTP.

Stage events come in the engine's order (scope, retrieved, generating, checking), each one valid
against the published ProgressEvent schema; the answer object comes last, once, after the checks;
no stage event holds any of the answer's text. Run against each question store (SQLite and
PostgreSQL): the streamed answer's turn is stored like any other.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import jsonschema
import pytest

from fixtures.question_stores import question_store  # noqa: F401 (a fixture)
from valid.index import Store
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.library import EngineSettings, LibraryReleases
from valid.serve.live import LiveServer, wait_ready

REPO = Path(__file__).resolve().parents[1]
OPENAPI = json.loads((REPO / "docs" / "openapi.json").read_text(encoding="utf-8"))
PRIYA = "I'm on Ironwood. Which --version do I pass when I create the VM?"
ORDER = ["scope", "retrieved", "generating", "checking"]


def validate(instance, schema_name: str) -> None:
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": OPENAPI["components"]}
    jsonschema.Draft202012Validator(schema).validate(instance)


@pytest.fixture(scope="module")
def client(sample_build, tmp_path_factory, question_store):
    settings = question_store.settings(tmp_path_factory.mktemp("events"))
    app = create_app(LibraryReleases(Store(sample_build.state), settings), ServeConfig(limits=Limits(rate_per_s=0)))
    with LiveServer(app) as server:
        wait_ready(server.url)
        with httpx.Client(base_url=server.url, timeout=30) as http:
            yield http


def stream(client, payload: dict) -> tuple[httpx.Response, list[tuple[str, dict]]]:
    """The response and its events, read as they arrive."""
    events, kind, data = [], None, []
    with client.stream("POST", "/v1/ask", json=payload, headers={"accept": "text/event-stream"}) as response:
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
            elif line == "" and kind:
                events.append((kind, json.loads("\n".join(data))))
                kind, data = None, []
    return response, events


def texts(answer: dict) -> list[str]:
    return [t for a in answer["answers"] for t in (a["answer"], *(s["text"] for s in a["steps"]))]


def test_stage_events_come_in_order_then_the_checked_answer(client):
    response, events = stream(client, {"question": PRIYA})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["x-valid-answer-id"] and response.headers["x-valid-conversation-id"]
    kinds = [k for k, _ in events]
    assert kinds[-1] == "answer" and kinds.count("answer") == 1 and "error" not in kinds
    stages = [data["stage"] for kind, data in events if kind == "stage"]
    for kind, data in events[:-1]:
        validate(data, "ProgressEvent")
    assert stages[:4] == ORDER, stages
    assert stages.count("scope") == 1
    assert "retrieved" not in stages[stages.index("generating"):], "every retrieval comes before generating"
    for i, stage in enumerate(stages):
        if stage == "checking":
            assert stages[i - 1] == "generating", "each draft is checked right after it is generated"
    first_scope = events[0][1]
    assert first_scope["scope"] == ["tpu7x"] and "Ironwood" in first_scope["matched"]
    answer = events[-1][1]
    validate(answer, "AnswerObject")
    assert answer["outcome"] == "answer" and answer["checks"]["passed"] is True


def test_no_answer_text_is_sent_before_the_checks_pass(client):
    response, events = stream(client, {"question": PRIYA})
    answer = events[-1][1]
    before = json.dumps([data for _, data in events[:-1]])
    for text in texts(answer):
        assert text not in before
    for cite in (s["cite"] for a in answer["answers"] for s in a["steps"]):
        assert cite not in before, "not even the evidence chosen is named before the checks"
    assert set().union(*(data.keys() for _, data in events[:-1])) <= {
        "stage", "scope", "matched", "generations", "chunks", "attempt"
    }


def test_the_streamed_answer_is_the_json_answer(client):
    _, events = stream(client, {"question": PRIYA})
    plain = client.post("/v1/ask", json={"question": PRIYA}).json()
    streamed = events[-1][1]
    assert texts(streamed) == texts(plain) and streamed["scope"] == plain["scope"]


def test_a_question_without_a_generation_streams_retrieval_then_its_choice(client):
    _, events = stream(client, {"question": "How many chips are in one TPU VM?"})
    stages = [data["stage"] for kind, data in events if kind == "stage"]
    assert stages[:2] == ["scope", "retrieved"]
    assert events[-1][0] == "answer" and events[-1][1]["outcome"] == "ask"


def test_errors_before_the_stream_are_plain_json(client):
    response = client.post(
        "/v1/ask", json={"question": PRIYA, "generation": "nope"}, headers={"accept": "text/event-stream"}
    )
    assert response.status_code == 422
    validate(response.json(), "ErrorBody")
    assert response.json()["error"]["code"] == "unknown_generation"


def hang_up_after(url: str, question: str, stage: str) -> list[str]:
    """Ask for a stream, read it up to the first `stage` event, then hang up; the events read."""
    seen = []
    with httpx.Client(base_url=url, timeout=30) as http:
        with http.stream("POST", "/v1/ask", json={"question": question},
                         headers={"accept": "text/event-stream"}) as response:
            assert response.status_code == 200, response.read()
            for line in response.iter_lines():
                if line.startswith("data: ") and seen[-1] == "stage":
                    seen[-1] = json.loads(line[len("data: "):])["stage"]
                    if seen[-1] == stage:
                        return seen
                elif line.startswith("event: "):
                    seen.append(line[len("event: "):])
    return seen


def tasks_of(loop: asyncio.AbstractEventLoop) -> dict[int, str]:
    """The tasks alive on the server's loop, by id (no reference to them is kept)."""

    async def alive() -> dict[int, str]:
        return {id(t): repr(t) for t in asyncio.all_tasks() if t is not asyncio.current_task()}

    return asyncio.run_coroutine_threadsafe(alive(), loop).result(10)


def settled(service, loop, before: dict[int, str], timeout_s: float = 60.0) -> dict[int, str]:
    """Once every turn has ended: the tasks left beyond those alive `before` (empty when clean)."""
    deadline = time.monotonic() + timeout_s
    while service.admission.running or service.admission.queued:
        assert time.monotonic() < deadline, "the turns did not end"
        time.sleep(0.05)
    while True:  # cancelled tasks end on the loop's next turns
        left = {i: r for i, r in tasks_of(loop).items() if i not in before}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


# Each client hangs up after one stage: a question answered (its last stage is checking) and one
# asked back (its last is retrieved). Hanging up after the last stage, while the answer is being
# logged, is the moment that left a task waiting for an event that never comes.
HANG_UPS = [(PRIYA, "scope"), (PRIYA, "retrieved"), (PRIYA, "generating"), (PRIYA, "checking"),
            ("How many chips are in one TPU VM?", "retrieved")] * 4


def test_clients_that_go_away_mid_stream_leave_no_task_pending(sample_build, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="asyncio")
    settings = EngineSettings(question_log=tmp_path / "questions.sqlite", issues_dir=tmp_path / "issues")
    app = create_app(LibraryReleases(Store(sample_build.state), settings), ServeConfig(limits=Limits(rate_per_s=0)))
    with LiveServer(app) as server:
        wait_ready(server.url)
        loop = server.server.servers[0].get_loop()
        before = tasks_of(loop)
        with ThreadPoolExecutor(4) as clients:
            read = list(clients.map(lambda hang_up: hang_up_after(server.url, *hang_up), HANG_UPS))
        assert [seen[-1] for seen in read] == [stage for _, stage in HANG_UPS], "every client hung up mid-stream"
        left = settled(app.state.service, loop, before)
        gc.collect()  # a pending task is reported when it is collected
        assert not left, f"tasks left pending after the clients went away: {sorted(left.values())}"
    warned = [r.getMessage() for r in caplog.records if r.name == "asyncio" and r.levelno >= logging.WARNING]
    assert not warned, warned[:3]
