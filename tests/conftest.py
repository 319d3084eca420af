"""Shared fixtures: the bundled sample, exported and indexed once per test session."""

from __future__ import annotations

import ctypes
import gc
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE_MAP = REPO / "sample_maps" / "cloud-tpu.ditamap"
SAMPLE_SCHEME = REPO / "schemes" / "tpu-generations.ditamap"
TRAPSETS = REPO / "sidecar" / "valid" / "data"


@dataclass(frozen=True)
class BundledSample:
    """A sample doc set shipped with VALID: its root map, subject scheme, DITAVALs and trap set."""

    name: str
    map: Path
    scheme: Path
    ditavals: Path  # one DITAVAL per profile, named <profile>.ditaval
    trapset: Path


CLOUD_TPU = BundledSample(
    "cloud-tpu", SAMPLE_MAP, SAMPLE_SCHEME, REPO / "schemes" / "ditaval", TRAPSETS / "trapset-cloud-tpu.jsonl"
)
CORVANE = BundledSample(
    "corvane",
    REPO / "sample_maps" / "corvane" / "corvane.ditamap",
    REPO / "schemes" / "corvane" / "corvane-releases.ditamap",
    REPO / "schemes" / "corvane" / "ditaval",
    TRAPSETS / "trapset-corvane.jsonl",
)
BUNDLED_SAMPLES = (CLOUD_TPU, CORVANE)


@dataclass(frozen=True)
class SampleBuild:
    state: Path  # a state directory whose active release is the sample's
    release_id: str
    export: Path  # the sample's export (JSON lines)


def export_sample(out: Path) -> Path:
    from valid.export import export

    export(SAMPLE_MAP, scheme=SAMPLE_SCHEME, out=out)
    return out


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory) -> SampleBuild:
    """The sample exported and indexed with the offline embedder, once per session.

    Read-only: a test that activates, builds or deletes anything works on a copy of `state`.
    """
    from valid.embed import make_embedder
    from valid.index import Store, build_release

    root = tmp_path_factory.mktemp("sample-build")
    export_path = export_sample(root / "chunks.jsonl")
    release = build_release(export_path, make_embedder("offline"), Store(root / "state")).release_id
    return SampleBuild(state=root / "state", release_id=release, export=export_path)


@pytest.fixture(scope="session")
def corvane_export(tmp_path_factory) -> Path:
    """The Corvane sample (two products, eight releases) exported once per session. Read-only."""
    from valid.export import export

    out = tmp_path_factory.mktemp("corvane-export") / "corvane.jsonl"
    export(CORVANE.map, scheme=CORVANE.scheme, out=out)
    return out


@pytest.fixture(scope="session")
def corvane_build(corvane_export, tmp_path_factory) -> SampleBuild:
    """The Corvane sample indexed with the offline embedder, once per session (read-only, like
    `sample_build`)."""
    from valid.embed import make_embedder
    from valid.index import Store, build_release

    root = tmp_path_factory.mktemp("corvane-build")
    release = build_release(corvane_export, make_embedder("offline"), Store(root / "state")).release_id
    return SampleBuild(state=root / "state", release_id=release, export=corvane_export)


@pytest.fixture(autouse=True, scope="module")
def _free_what_the_module_left():
    """After each module (its fixtures torn down): free what it left for the cyclic collector.

    Apps, engines and releases are webs of reference cycles that only a full collection frees, and
    in a large process those come rarely; and embedded Chroma keeps every store it opened in a
    process-wide cache (chromadb's SharedSystemClient) until a client is closed, which a test that
    builds a release in a temporary state never does. Left alone, both add up over the session.
    Nothing outlives a module but the session fixtures, which hold paths, not clients."""
    yield
    if "chromadb" in sys.modules:
        from chromadb.api.shared_system_client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    gc.collect()
    _return_freed_memory()


def _return_freed_memory() -> None:
    """Hand the freed heap back to the system (glibc keeps it in its per-thread arenas otherwise:
    the servers' worker threads each have one, so the process's size only ever grew)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return  # not glibc: nothing to trim
    libc.malloc_trim(0)


@pytest.fixture(scope="session")
def postgres_url():
    """A throwaway PostgreSQL server on 127.0.0.1 for the whole session (started on first use; skipped,
    or failed under VALID_REQUIRE_SYSTEM_TOOLS, without its binaries). Tests take a fresh database of
    it through `fixtures.postgres.fresh_database`."""
    from fixtures.postgres import postgres_server

    with postgres_server() as url:
        yield url


# Modules that run whole pipelines, servers, browsers or other processes (each test a few seconds or
# more). They are left out of the fast loop, `python3 -m pytest -m "not slow"`; the README's Tests
# section gives both loops' measured time. Single slow tests elsewhere carry @pytest.mark.slow.
SLOW_MODULES = frozenset({
    "test_answer_sample", "test_browser_ask_page", "test_corrupt_state", "test_demo_directory",
    "test_evaluate_sample", "test_export_batches", "test_export_parallel", "test_gate_before_activation",
    "test_index_build", "test_index_filter_soundness", "test_index_incremental_property", "test_plugin_ask_box_profile",
    "test_plugin_dita_ot", "test_plugin_plan", "test_plugin_sidecar", "test_progress", "test_question_reading_scale",
    "test_question_store_outage", "test_question_store_postgres",
    "test_scope_property", "test_serve_edge", "test_serve_several_servers", "test_two_attribute_questions",
    "test_your_doc_set_guide",
})


def pytest_collection_modifyitems(items):
    for item in items:
        if item.module is not None and item.module.__name__.rpartition(".")[2] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
