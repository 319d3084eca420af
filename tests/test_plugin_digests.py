"""The plugin's chunk digests: SHA-256 by Ant's checksum task, not in XSLT, and the same bytes as
`valid export` writes.

The plugin runs the export stylesheet with digests=deferred, writes each distinct chunk text to a
file (xsl-plugin/digests.xsl, step=texts), hashes the files with Ant (valid-index.chunk-digests)
and fills the digests in (step=fill). The first test runs those steps without DITA-OT: the
stylesheet in saxonche, the Ant target on plain Ant through the harness. The others run the whole
plugin in DITA-OT 4.x (DITA_HOME; skipped with the reason without it).
"""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape
from pathlib import Path

import pytest

from test_plugin_dita_ot import SAMPLES, _dita, _output, dita_ot, jobs  # noqa: F401  (dita_ot: the fixture)

DIGESTS_XSL = jobs.REPO / "dita-ot-plugin" / "xsl-plugin" / "digests.xsl"
PLACEHOLDER = ',"digest":"deferred"}'

# Texts the digests must get right byte for byte: UTF-8 of non-ASCII (2, 3 and 4 bytes), CR and
# LF in every combination, a text longer than any buffer, one given twice, the placeholder itself.
AWKWARD_TEXTS = [
    "Größe: 10 µm, Ökonomie, 日本語のテキスト, emoji \U0001F680 and \U0001D11E",
    "a/path/with\\/slashes and a backslash before one",
    "line one\r\nline two\rline three\nline four\n",
    "\r\n",
    "long " + "0123456789abcdef\u00e9\u20ac" * 40000,
    "Größe: 10 µm, Ökonomie, 日本語のテキスト, emoji \U0001F680 and \U0001D11E",
    'a text that says ,"digest":"deferred"} itself, "quoted" \\ and \t tabbed',
    "\u2028 line and paragraph separators \u2029, NEL \u0085, DEL \u007f, tab\t",
]


def _deferred_export(texts: list[str]) -> str:
    """A header, then chunk lines serialized as xsl/json.xsl serializes them (Saxon's xml-to-json,
    which escapes control characters, then "\\/" back to "/"), each with the deferred digest."""
    from saxonche import PySaxonProcessor

    def fn_string(key: str, value: str) -> str:
        return f'<string key="{key}">{escape(value, {chr(13): "&#13;"})}</string>'

    with PySaxonProcessor(license=False) as proc:
        xpath = proc.new_xpath_processor()
        lines = []
        for n, text in enumerate(texts):
            tree = (f'<map xmlns="http://www.w3.org/2005/xpath-functions">{fn_string("kind", "chunk")}'
                    f'{fn_string("id", f"t.dita#t/c{n}")}{fn_string("text", text)}{fn_string("digest", "deferred")}</map>')
            xpath.set_parameter("tree", proc.make_string_value(tree))
            lines.append(xpath.evaluate_single(r"replace(xml-to-json(parse-xml($tree)), '\\/', '/')").string_value)
    assert all(line.startswith('{"kind":"chunk",') and line.endswith(PLACEHOLDER) for line in lines)
    return "\n".join(['{"kind":"header","schema_version":"1.0"}', *lines]) + "\n"


def _run_digests_xsl(step: str, work: Path, **params: str) -> str:
    from saxonche import PySaxonProcessor

    (work / "run.xml").write_text("<valid-run/>", encoding="utf-8")
    with PySaxonProcessor(license=False) as proc:
        exe = proc.new_xslt30_processor().compile_stylesheet(stylesheet_file=str(DIGESTS_XSL))
        exe.set_parameter("step", proc.make_string_value(step))
        for name, value in params.items():
            exe.set_parameter(name.replace("_", "-"), proc.make_string_value(value))
        exe.set_base_output_uri((work / "out.txt").as_uri())
        return exe.transform_to_string(source_file=str(work / "run.xml"))


def test_the_plugins_digest_steps_give_hashlibs_sha256_for_non_ascii_cr_lf_and_long_texts(tmp_path):
    from valid.export.xslt import fill_digests

    work = tmp_path / "valid"
    (work / "chunk-texts").mkdir(parents=True)
    deferred = _deferred_export(AWKWARD_TEXTS)
    (work / "export-deferred.jsonl").write_bytes(deferred.encode("utf-8"))
    export_uri = (work / "export-deferred.jsonl").as_uri()

    written = _run_digests_xsl("texts", work, export_uri=export_uri,
                               texts_dir_uri=(work / "chunk-texts").as_uri() + "/")
    assert int(written) == len(set(AWKWARD_TEXTS)) == len(list((work / "chunk-texts").glob("*.txt")))

    hashed = jobs.ant("valid-index.chunk-digests", buildfile=jobs.HARNESS,
                      harness__plugin__dir=str(jobs.REPO / "dita-ot-plugin"), valid__work__dir=str(work))
    assert hashed.returncode == 0, hashed.stdout + hashed.stderr

    filled = _run_digests_xsl("fill", work, export_uri=export_uri,
                              digests_uri=(work / "chunk-digests.txt").as_uri())
    lines = filled.split("\n")
    assert lines[0] == deferred.split("\n")[0] and lines[-1] == ""  # header as written, final LF kept
    for line, text in zip(lines[1:-1], AWKWARD_TEXTS, strict=True):
        chunk = json.loads(line)
        assert chunk["text"] == text
        assert chunk["digest"] == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert filled.encode("utf-8") == fill_digests(deferred).encode("utf-8")  # `valid export`'s bytes


def test_a_text_without_its_digest_stops_the_fill_step(tmp_path):
    from saxonche import PySaxonApiError

    work = tmp_path / "valid"
    work.mkdir()
    (work / "export-deferred.jsonl").write_bytes(_deferred_export(["one", "two"]).encode("utf-8"))
    digest_of_one = hashlib.sha256(b"one").hexdigest()
    (work / "chunk-digests.txt").write_text(f"{digest_of_one} 2.txt\n", encoding="utf-8")  # line 3 missing
    with pytest.raises(PySaxonApiError, match="no SHA-256 digest .* export line 3"):
        _run_digests_xsl("fill", work, export_uri=(work / "export-deferred.jsonl").as_uri(),
                         digests_uri=(work / "chunk-digests.txt").as_uri())


def test_the_plugin_computes_no_digest_in_xslt():
    # xsl/sha256.xsl takes hours on a large guide under Saxon-HE: the export step defers them.
    root = ET.parse(jobs.REPO / "dita-ot-plugin" / "build_valid-index.xml").getroot()
    export = next(x for x in root.iter("xslt") if x.get("style", "").endswith("/valid-index-ot.xsl"))
    assert {p.get("name"): p.get("expression") for p in export.findall("param")}.get("digests") == "deferred"
    assert root.find(".//target[@name='valid-index.chunk-digests']/checksum").get("algorithm") == "SHA-256"


# ------------------------------------------------------------------------------- inside DITA-OT

TOPIC = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topic PUBLIC "-//OASIS//DTD DITA Topic//EN" "topic.dtd">
<topic id="awkward">
  <title>Größe und Maße</title>
  <body>
    <p>Größe: 10 µm, Ökonomie, 日本語のテキスト, emoji &#x1F680; and &#x1D11E;.</p>
    <p platform="alpha">Only alpha: naïve café.</p>
    <codeblock>first line&#13;&#10;second line&#13;third line&#10;fourth line</codeblock>
    <section id="long"><title>Long</title><p>{long}</p></section>
  </body>
</topic>
"""

MAP = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE map PUBLIC "-//OASIS//DTD DITA Map//EN" "map.dtd">
<map><title>Awkward texts</title><topicref href="awkward.dita"/></map>
"""


def _ditaval(excluded: str) -> str:
    return f'<val><prop att="platform" val="{excluded}" action="exclude"/></val>\n'


@pytest.fixture(scope="module")
def awkward_doc_set(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    src = tmp_path_factory.mktemp("awkward")
    long_text = " ".join(f"Wort{n} über straße" for n in range(12000))  # about 250 KB
    (src / "awkward.dita").write_text(TOPIC.replace("{long}", long_text), encoding="utf-8")
    (src / "awkward.ditamap").write_text(MAP, encoding="utf-8")
    profiles = {}
    for name, excluded in (("alpha", "beta"), ("beta", "alpha")):
        profiles[name] = src / f"{name}.ditaval"
        profiles[name].write_text(_ditaval(excluded), encoding="utf-8")
    return src / "awkward.ditamap", profiles


def test_dita_ot_chunk_digests_equal_hashlib_on_non_ascii_cr_lf_and_long_texts(dita_ot, tmp_path, awkward_doc_set):  # noqa: F811
    from valid.export import export

    ditamap, profiles = awkward_doc_set
    given = ",".join(f"{name}={path}" for name, path in profiles.items())
    run = _dita("--input", str(ditamap), "--format", "valid-index", "--output", str(tmp_path / "ot"),
                f"--valid.ditavals={given}")
    assert run.returncode == 0, _output(run)[-6000:]
    written = (tmp_path / "ot" / "awkward.jsonl").read_bytes()
    chunks = [json.loads(line) for line in written.decode("utf-8").splitlines()[1:]]
    texts = [c["text"] for c in chunks]
    # the awkward cases reached the chunk texts
    assert any("\U0001F680" in t and "日本語" in t for t in texts)
    assert any("\r\n" in t for t in texts) and max(len(t.encode("utf-8")) for t in texts) > 200_000
    for chunk in chunks:
        assert chunk["digest"] == hashlib.sha256(chunk["text"].encode("utf-8")).hexdigest(), chunk["id"]
    export(ditamap, profiles=profiles, out=tmp_path / "export.jsonl")
    assert written == (tmp_path / "export.jsonl").read_bytes()


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_the_plugin_export_of_every_bundled_sample_is_byte_identical_to_valid_export(dita_ot, tmp_path, sample):  # noqa: F811
    from valid.export import export

    run = _dita("--input", str(sample.map), "--format", "valid-index", "--output", str(tmp_path / "ot"),
                f"--valid.scheme={sample.scheme}")
    assert run.returncode == 0, _output(run)[-6000:]
    export(sample.map, scheme=sample.scheme, out=tmp_path / "export.jsonl")
    assert (tmp_path / "ot" / f"{sample.map.stem}.jsonl").read_bytes() == (tmp_path / "export.jsonl").read_bytes()
