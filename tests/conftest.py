"""Shared fixtures: the bundled sample, exported and indexed once per test session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE_MAP = REPO / "sample_maps" / "cloud-tpu.ditamap"
SAMPLE_SCHEME = REPO / "schemes" / "tpu-generations.ditamap"


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
