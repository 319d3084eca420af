"""The DITA-OT plugin and `valid export` give the same export of the Oxygen XML user guide.

The guide (`oxygenxml/userguide`, 2,648 topics) as it comes, through `dita --format=valid-index`
and through `valid export`, with the DITAVALs of tests/trapsets/oxygen-userguide.toml: identical
chunk ids, texts and scopes, and the link text DITA-OT generates in both (an empty link to an
external key shows its URL, one to a definition-list entry its term, one to a section reused by
conref the reused title).

A DITA-OT build of the guide takes minutes per profile on two cores, so this test takes three
profiles (editor-sa, author-sa and license-server: the two largest editions and the smallest);
the comparison over all 20 DITAVALs is in docs/benchmarks.md with its commands.

Needs DITA_HOME (DITA-OT 4.x) and OXYGEN_USERGUIDE (a checkout of oxygenxml/userguide); skipped
with the reason otherwise.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from fixtures.public_docsets import checkout

from test_plugin_dita_ot import dita_ot, plugin_export  # noqa: F401  (dita_ot: the fixture)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from plugin_parity import chunks, compare  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TRAPSET = REPO / "tests" / "trapsets" / "oxygen-userguide.toml"
PROFILES = ("editor-sa", "author-sa", "license-server")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def guide() -> Path:
    return checkout("OXYGEN_USERGUIDE", "DITA/UserManual.ditamap", "oxygenxml/userguide")


@pytest.fixture(scope="module")
def both(guide, dita_ot, tmp_path_factory):  # noqa: F811
    """(plugin export, `valid export`) chunks by id, for PROFILES."""
    from valid.export import export

    config = tomllib.loads(TRAPSET.read_text(encoding="utf-8"))
    ditavals = {name: guide / config["ditavals"][name] for name in PROFILES}
    root_map = guide / config["map"]
    out = tmp_path_factory.mktemp("oxygen")
    plugin = plugin_export(root_map, ditavals, out / "plugin")
    export(root_map, profiles=ditavals, out=out / "export.jsonl")
    return chunks(plugin), chunks(out / "export.jsonl")


def test_every_chunk_of_the_plugin_is_in_valid_export_with_the_same_scope_on_the_oxygen_guide(both):
    parity = compare(*both)
    assert parity.only_in_plugin == []
    assert [d.id for d in parity.differ if d.field == "scope"] == []


def test_the_plugin_and_valid_export_give_the_same_ids_texts_and_scopes_on_the_oxygen_guide(both):
    parity = compare(*both)
    assert parity.agree, (parity.counts(), parity.only_in_plugin[:5], parity.only_in_export[:5],
                          [(d.id, d.field) for d in parity.differ[:5]])


def test_link_text_dita_ot_generates_is_in_both_exports_of_the_oxygen_guide(both):
    for chunks_by_id in both:
        texts = [c["text"] for c in chunks_by_id.values()]
        # an empty xref to an external key without link text: the URL (DITA-OT's keyref step)
        assert any("Go to http" in t and "download the Oracle 11g JDBC driver" in t for t in texts)
        assert not any("Go to  and download" in t for t in texts)
        # an empty xref to a dlentry: its term (DITA-OT's topicpull)
        assert any("(controlled from the Optimize loading for documents with lines longer than (Characters) option)"
                   in " ".join(t.split()) for t in texts)
        # an empty xref to a section reused by conref, then a link with its own text
        assert any("Sharing Profiling Attribute ConfigurationsSharing Profiling Attribute Configurations" in t
                   for t in texts)
