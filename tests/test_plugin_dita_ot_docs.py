"""The DITA-OT plugin on DITA-OT's own documentation as it comes from a source checkout.

`dita-ot/docs` lacks the 17 topics its own build generates (`parameters/parameters-base.dita`,
`topics/error-messages.xml`, ...). DITA-OT lists some of them in the job as written, writes
nothing for them, reports them and builds the rest; so does the plugin's stylesheet (job.xsl:
a referenced temp file the build did not write contributes nothing).

Needs DITA_HOME (DITA-OT 4.x) and DITA_OT_DOCS (a checkout of dita-ot/docs); skipped with the
reason otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures.public_docsets import checkout

from test_plugin_dita_ot import dita_ot, plugin_export  # noqa: F401  (dita_ot: the fixture)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def docs() -> Path:
    return checkout("DITA_OT_DOCS", "userguide.ditamap", "dita-ot/docs")


def test_the_userguide_with_its_html_and_pdf_ditavals_builds_though_generated_topics_are_missing(dita_ot, docs, tmp_path):
    ditavals = {name: docs / "resources" / f"{name}.ditaval" for name in ("html", "pdf")}
    written = plugin_export(docs / "userguide.ditamap", ditavals, tmp_path / "out")
    lines = [json.loads(line) for line in written.read_text(encoding="utf-8").splitlines()]
    header, chunks = lines[0], lines[1:]
    assert [p["name"] for p in header["profiles"]] == ["html", "pdf"]
    assert len(chunks) > 500
    # A topic that conrefs the missing parameters-base.dita is there, with what it has of its own.
    ids = {c["id"].partition("#")[0] for c in chunks}
    assert "parameters/dita-command-arguments.dita" in ids
