"""xsl/sha256.xsl: SHA-256 in XSLT 3.0 agrees with hashlib, and the runner's fast path writes the
same bytes as the stylesheet's own digests."""

from __future__ import annotations

import hashlib
import json
import random
from xml.sax.saxutils import escape

import pytest
from saxonche import PySaxonProcessor

from fixtures.preprocessed.materialize import materialize
from valid.export.xslt import fill_digests, run_export, xsl_dir


def _strings() -> list[str]:
    rng = random.Random(20261201)
    alphabet = "abc xyz-_./\\\"'<>&\t\n" + "éüßñ" + "中文日本" + "😀🚀" + "\u00a0\u2028\ufffd"
    fixed = [
        "", "a", "abc", "The quick brown fox jumps over the lazy dog",
        "gcloud compute tpus tpu-vm create --version=v2-alpha-tpuv6e",
        "Trillium ≠ Ironwood", "😀", "\U0010FFFF",
    ]
    # Lengths around the padding boundaries (55/56 bytes, 64-byte blocks).
    boundaries = ["x" * n for n in (54, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000)]
    multibyte_boundaries = ["é" * n for n in (27, 28, 32)] + ["😀" * n for n in (13, 14, 16)]
    random_texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(60)]
    return fixed + boundaries + multibyte_boundaries + random_texts


def _digest_pairs_for(texts: list[str]) -> tuple[list[str], list[str]]:
    """Digests computed by v:sha256 for each text, in one transformation."""
    document = "<texts>" + "".join(f"<t>{escape(t)}</t>" for t in texts) + "</texts>"
    wrapper = f"""<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
        xmlns:v="urn:valid:xsl">
      <xsl:import href="{(xsl_dir() / 'sha256.xsl').as_uri()}"/>
      <xsl:output method="text"/>
      <xsl:template match="/">
        <xsl:value-of select="texts/t ! v:sha256(string(.))" separator="&#10;"/>
      </xsl:template>
    </xsl:stylesheet>"""
    with PySaxonProcessor(license=False) as processor:
        executable = processor.new_xslt30_processor().compile_stylesheet(stylesheet_text=wrapper)
        source = processor.parse_xml(xml_text=document)
        out = executable.transform_to_string(xdm_node=source)
    # Parsing normalizes line ends; hash what the stylesheet saw.
    return [t.replace("\r\n", "\n").replace("\r", "\n") for t in texts], out.split("\n")


@pytest.fixture(scope="module")
def xslt_digests():
    return _digest_pairs_for(_strings())


def test_sha256_matches_hashlib_on_many_strings(xslt_digests):
    texts, digests = xslt_digests
    assert len(digests) == len(texts)
    for text, digest in zip(texts, digests):
        assert digest == hashlib.sha256(text.encode("utf-8")).hexdigest(), repr(text)


def test_sha256_known_answers():
    digests = dict(zip(*_digest_pairs_for(["", "abc", "é"])))
    assert digests[""] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert digests["abc"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    # UTF-8 bytes (c3 a9), not the code point U+00E9 as one byte.
    assert digests["é"] == hashlib.sha256(b"\xc3\xa9").hexdigest() != hashlib.sha256(b"\xe9").hexdigest()


def test_python_digests_are_byte_identical_to_stylesheet_digests(tmp_path):
    run = materialize("cloud-tpu", tmp_path)
    in_stylesheet = run_export(run, digests="sha256")
    in_python = run_export(run, digests="python")
    assert in_python == in_stylesheet
    digests = [json.loads(line)["digest"] for line in in_python.splitlines()[1:]]
    assert digests and all(len(d) == 64 for d in digests)


def test_fill_digests_only_touches_the_deferred_digest():
    line = json.dumps({"kind": "chunk", "text": 'a "quoted" \\ / 😀', "digest": "deferred"}, ensure_ascii=False,
                      separators=(",", ":"))
    header = '{"kind":"header","digest":"deferred"}'  # not a chunk line ending: left alone
    filled = fill_digests(f"{header}\n{line}\n")
    expected = hashlib.sha256('a "quoted" \\ / 😀'.encode("utf-8")).hexdigest()
    assert filled == f"{header}\n{line.replace('deferred', expected)}\n"
