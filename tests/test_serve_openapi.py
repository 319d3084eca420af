"""The published OpenAPI schema (docs/openapi.json): current, and fuzzed against the live service.

The fuzzing is a bounded schemathesis run over real HTTP on 127.0.0.1 (the real sample, the real
offline engine): whatever valid or invalid input it generates, the service never answers 5xx, and
every response matches what the schema declares for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks

from valid.index import Store
from valid.serve import Limits, ServeConfig, create_app, openapi_json
from valid.serve.library import LibraryReleases
from valid.serve.live import LiveServer, wait_ready

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = REPO / "docs" / "openapi.json"
schema = schemathesis.openapi.from_dict(json.loads(PUBLISHED.read_text(encoding="utf-8")))



class _NothingActive:
    def active_id(self):
        return None

    def open(self, release_id):
        raise AssertionError("never opened")


def test_published_schema_is_the_apps_schema():
    current = openapi_json(create_app(_NothingActive(), ServeConfig()))
    assert PUBLISHED.read_text(encoding="utf-8") == current, (
        "docs/openapi.json is stale: run `valid serve --openapi docs/openapi.json`"
    )


def test_every_route_documents_the_error_shape_for_its_failures():
    spec = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            errors = {code: r for code, r in operation["responses"].items() if code[0] in "45"}
            if path == "/metrics":
                continue
            assert errors, f"{method.upper()} {path} documents no error response"
            for code, response in errors.items():
                ref = response["content"]["application/json"]["schema"]["$ref"]
                assert ref == "#/components/schemas/ErrorBody", f"{method.upper()} {path} {code}"



@pytest.fixture(scope="module")
def live_url(sample_build):
    state = sample_build.state
    app = create_app(LibraryReleases(Store(state)), ServeConfig(limits=Limits(rate_per_s=0)))
    with LiveServer(app) as server:
        wait_ready(server.url)
        yield server.url


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)
def test_fuzzed_requests_never_get_a_5xx_and_match_the_schema(case, live_url):
    case.call_and_validate(
        base_url=live_url,
        checks=[
            checks.not_a_server_error,
            checks.status_code_conformance,
            checks.content_type_conformance,
            checks.response_schema_conformance,
            checks.negative_data_rejection,
        ],
    )
