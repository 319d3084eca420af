"""A stopped app leaves nothing of what it served alive in the process.

A process that creates apps one after another (the test suite does, hundreds of times; so would a
host that embeds the service) must not keep every release, embedder (an ONNX session, ~100 MB) and
Chroma client it ever served. Real server on 127.0.0.1, the real sample index, the offline embedder.
"""

from __future__ import annotations

import gc
import shutil
import weakref

import httpx

from valid.index import Store
from valid.serve import Limits, ServeConfig, create_app
from valid.serve.library import EngineSettings, LibraryReleases
from valid.serve.live import LiveServer, wait_ready


def test_a_stopped_app_keeps_no_release_or_embedder_of_its_source_alive(sample_build, tmp_path):
    state = tmp_path / "state"
    shutil.copytree(sample_build.state, state)
    source = LibraryReleases(Store(state), EngineSettings(log_questions=False))
    app = create_app(source, ServeConfig(limits=Limits(rate_per_s=0), release_check_interval_s=0))
    with LiveServer(app) as server:
        wait_ready(server.url)
        asked = httpx.post(server.url + "/v1/ask", json={"question": "How many chips are in one TPU v5p VM?"}, timeout=60)
        assert asked.status_code == 200, asked.text
        reloaded = httpx.post(server.url + "/v1/admin/reload", timeout=60)
        assert reloaded.status_code == 200, reloaded.text
        assert reloaded.json()["release"] == sample_build.release_id
        watched = [weakref.ref(source), *(weakref.ref(e) for e in source._embedders.values())]
    assert len(watched) > 1, "the app never loaded an embedder: nothing would be checked"
    del source, app, server
    gc.collect()
    alive = [type(ref()).__name__ for ref in watched if ref() is not None]
    assert not alive, f"still alive after the app stopped: {', '.join(alive)}"


def test_a_stopped_app_lets_go_of_its_embedder_before_any_garbage_collection(sample_build, tmp_path):
    # A stopped app is a web of reference cycles; the model must not wait for the collector.
    state = tmp_path / "state"
    shutil.copytree(sample_build.state, state)
    gc.collect()
    gc.disable()
    try:
        source = LibraryReleases(Store(state), EngineSettings(log_questions=False))
        app = create_app(source, ServeConfig(limits=Limits(rate_per_s=0), release_check_interval_s=0))
        with LiveServer(app) as server:
            wait_ready(server.url)
            asked = httpx.post(server.url + "/v1/ask", json={"question": "How many chips are in one TPU v5p VM?"}, timeout=60)
            assert asked.status_code == 200, asked.text
            embedders = [weakref.ref(e) for e in source._embedders.values()]
        assert embedders, "the app never loaded an embedder: nothing would be checked"
        del app, server
        assert all(ref() is None for ref in embedders), "the stopped app still holds its embedder"
    finally:
        gc.enable()
