"""An empty link to a titled figure or table reads "Figure N" or "Table N", numbered as each
profile's build filters the file, as DITA-OT 4.2.4's topicpull writes it (its default link style).

Found on Apache Impala's documentation (`topics/impala_complex_types.xml`: "the single-table schema
from <xref href='#...'/>"): the export showed the figure's title where DITA-OT and the plugin show
"Figure 1". The fixture (tests/fixtures/dita/figure_links) has a figure only one profile keeps
before the linked one, a figure without a title (not counted) and a titled table. With DITA_HOME
set, each profile is also built with DITA-OT's HTML5 and compared.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from fixtures.dita_home import dita_command

from valid.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "dita" / "figure_links"
MAP = FIXTURE / "figure_links.ditamap"
PROFILES = {name: FIXTURE / "ditaval" / f"{name}.ditaval" for name in ("online", "print")}
SENTENCE = {"online": "Compare with Figure 2 and Table 1.", "print": "Compare with Figure 1 and Table 1."}


@pytest.fixture(scope="module")
def texts(tmp_path_factory) -> dict[str, str]:
    """The topic body's text per profile."""
    out = tmp_path_factory.mktemp("figure-links") / "out.jsonl"
    profiles = [f"--profile={name}={path}" for name, path in PROFILES.items()]
    result = CliRunner().invoke(main, ["export", str(MAP), *profiles, "-o", str(out), "--jobs", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    found = {}
    for line in out.read_text(encoding="utf-8").splitlines()[1:]:
        chunk = json.loads(line)
        if chunk["id"].startswith("topics/schemas.dita#schemas/body"):
            found.update({name: chunk["text"] for name, kept in chunk["scope"].items() if kept})
    return found


@pytest.mark.parametrize("profile", list(PROFILES))
def test_an_empty_link_to_a_titled_figure_or_table_reads_its_number_in_the_filtered_file(texts, profile):
    assert SENTENCE[profile] in texts[profile].split("\n")


@pytest.mark.parametrize("profile", list(PROFILES))
def test_dita_ots_html5_build_numbers_them_the_same(tmp_path, profile):
    dita = dita_command()
    run = subprocess.run(
        [str(dita), f"--input={MAP}", "--format=html5", f"--filter={PROFILES[profile]}",
         f"--output={tmp_path / 'out'}", f"--temp={tmp_path / 'temp'}"],
        capture_output=True, text=True, timeout=300,
    )
    page = tmp_path / "out" / "topics" / "schemas.html"
    assert page.is_file(), (run.stdout + run.stderr)[-2000:]
    [paragraph] = re.findall(r'<p class="p">(Compare.*?)</p>', page.read_text(encoding="utf-8"), re.S)
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", paragraph)).split())
    assert text == SENTENCE[profile]
