"""Variants of one chunk that differ only in their profiles' names share one vector.

A key that resolves to each edition's product name splits a chunk into one variant per edition. The
index embeds one input for such a group (the variant kept by the most profiles) and stores that
vector for every variant, each with its own scope fields; BM25 keeps every variant's exact text. A
profile-filtered search therefore still returns only the variant in scope, with its own text.
"""

from __future__ import annotations

from pathlib import Path

from fixtures.index.embedders import HashEmbedder
from valid.contracts import Chunk, ExportCounts, ExportHeader, OwnedValue, ProfileInfo, SourceLocation
from valid.export import export
from valid.export.file import read_export
from valid.index import Store, build_release, open_active
from valid.index.manifest import embedding_input
from valid.index.variants import is_name, masked, shared_inputs

PROFILES = ("editor", "author", "developer")
PRODUCT = {"editor": "Acme XML Editor", "author": "Acme XML Author", "developer": "Acme XML Developer"}


def _header(owned: list[OwnedValue], labels: dict[str, list[str]] | None = None) -> ExportHeader:
    labels = labels or {}
    return ExportHeader(
        map="m.ditamap",
        profiles=[ProfileInfo(name=p, labels=labels.get(p, [p]), ditaval_digest="0" * 64) for p in PROFILES],
        exporter_version="0",
        stylesheet_digest="0" * 64,
        counts=ExportCounts(chunks=0, kept_by_no_profile=0, per_profile={p: 0 for p in PROFILES}),
        owned_values=owned,
    )


def _chunk(chunk_id: str, text: str, kept: set[str], title: str = "Options") -> Chunk:
    return Chunk(
        id=chunk_id,
        text=text,
        title=title,
        breadcrumbs=[title],
        type="section",
        topic_id="t",
        source=SourceLocation(path="t.dita", line=1, xpath="/topic[1]/body[1]/section[1]"),
        scope={p: p in kept for p in PROFILES},
        scope_origin="element",
        digest="0" * 64,
    )


def _products() -> list[OwnedValue]:
    return [OwnedValue(value=name, profiles=[p], rule="keydef", key="product") for p, name in PRODUCT.items()]


def test_variants_that_differ_only_in_their_own_product_name_share_the_widest_variants_input():
    chunks = [
        _chunk("t.dita#t/s~editor", "Acme XML Editor saves a backup copy every 5 minutes.", {"editor"}),
        _chunk("t.dita#t/s~author+developer", "Acme XML Author saves a backup copy every 5 minutes.", {"author", "developer"}),
    ]
    inputs = shared_inputs(chunks, _header(_products()))
    assert inputs == [embedding_input("Options", chunks[1].text)] * 2


def test_a_variant_that_differs_in_anything_else_keeps_its_own_input():
    chunks = [
        _chunk("t.dita#t/s~editor", "Acme XML Editor saves a backup copy every 5 minutes.", {"editor"}),
        _chunk("t.dita#t/s~author", "Acme XML Author saves a backup copy every 10 minutes.", {"author"}),
    ]
    inputs = shared_inputs(chunks, _header(_products()))
    assert inputs == [embedding_input(c.title, c.text) for c in chunks]


def test_another_profiles_name_is_not_masked():
    # The author variant names the editor edition: that is content, not its own name.
    chunks = [
        _chunk("t.dita#t/s~editor", "Acme XML Editor opens the file.", {"editor"}),
        _chunk("t.dita#t/s~author", "Acme XML Editor opens the file in Acme XML Author.", {"author"}),
    ]
    assert shared_inputs(chunks, _header(_products())) == [embedding_input(c.title, c.text) for c in chunks]


def test_only_variants_of_one_chunk_identity_are_grouped():
    chunks = [
        _chunk("a.dita#a/s~editor", "Acme XML Editor saves a backup.", {"editor"}),
        _chunk("b.dita#b/s~author", "Acme XML Author saves a backup.", {"author"}),
    ]
    assert shared_inputs(chunks, _header(_products())) == [embedding_input(c.title, c.text) for c in chunks]


def test_labels_are_names_and_owned_values_that_state_facts_are_not():
    assert is_name("Acme XML Author") and is_name("Trillium")
    for value in ("v2-alpha-tpuv6e", "2.0.0", "8", "5 GiB", "~/.acme.toml", "acme login", "lz4"):
        assert not is_name(value), value
    owned = [
        OwnedValue(value="v2-alpha-tpuv5", profiles=["editor"], rule="keydef", key="image"),
        OwnedValue(value="v2-alpha-tpuv6e", profiles=["author"], rule="keydef", key="image"),
    ]
    labels = {"editor": ["TPU v5p"], "author": ["TPU v6e"]}
    rows = [
        _chunk("t.dita#t/row~editor", "TPU v5p | v2-alpha-tpuv5", {"editor"}),
        _chunk("t.dita#t/row~author", "TPU v6e | v2-alpha-tpuv6e", {"author"}),
        _chunk("t.dita#t/intro~editor", "Create a TPU v5p VM.", {"editor"}),
        _chunk("t.dita#t/intro~author", "Create a TPU v6e VM.", {"author"}),
    ]
    inputs = shared_inputs(rows, _header(owned, labels))
    assert inputs[0] != inputs[1]  # the software version is a fact
    assert inputs[2] == inputs[3]  # only the label differs


def test_a_name_inside_a_longer_token_is_not_masked():
    assert masked("Use v5p or v5p-8 or v5p_image.", ["v5p"]) == "Use \x00 or v5p-8 or v5p_image."


# -- through `valid export` and a real release --------------------------------------------------

MAP = """<map>
  <title>Acme XML</title>
  <keydef keys="product" product="editor"><topicmeta><keywords><keyword>Acme XML Editor</keyword></keywords></topicmeta></keydef>
  <keydef keys="product" product="author"><topicmeta><keywords><keyword>Acme XML Author</keyword></keywords></topicmeta></keydef>
  <keydef keys="product" product="developer"><topicmeta><keywords><keyword>Acme XML Developer</keyword></keywords></topicmeta></keydef>
  <topicref href="backup.dita"/>
  <topicref href="fonts.dita"/>
</map>"""
BACKUP = """<topic id="backup"><title>Automatic backups</title><body>
  <p><ph keyref="product"/> saves a backup copy of every open document at regular intervals, so that a crash
  loses little work. Open the backup options to change how often it saves.</p>
</body></topic>"""
FONTS = """<topic id="fonts"><title>Fonts</title><body>
  <p>The display font is <ph product="editor">Consolas</ph><ph product="author developer">Monaco</ph>.</p>
</body></topic>"""


def _ditaval(keep: str) -> str:
    rules = "".join(f'<prop att="product" val="{p}" action="exclude"/>' for p in PROFILES if p != keep)
    return f"<val>{rules}</val>"


def _export(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in {"m.ditamap": MAP, "backup.dita": BACKUP, "fonts.dita": FONTS}.items():
        (docs / name).write_text(text, encoding="utf-8")
    profiles = []
    for p in PROFILES:
        (docs / f"{p}.ditaval").write_text(_ditaval(p), encoding="utf-8")
        profiles.append((p, docs / f"{p}.ditaval"))
    out = tmp_path / "chunks.jsonl"
    export(docs / "m.ditamap", profiles=profiles, out=out)
    return out


def test_a_release_embeds_one_input_for_name_only_variants_and_searches_stay_in_scope(tmp_path):
    path = _export(tmp_path)
    chunks = read_export(path).chunks
    backups = [c for c in chunks if c.topic_id == "backup"]
    fonts = [c for c in chunks if c.topic_id == "fonts"]
    assert len(backups) == 3 and len(fonts) == 2  # one variant per edition; the fonts differ in a fact

    embedder = HashEmbedder()
    result = build_release(path, embedder, Store(tmp_path / "state"))
    # 5 chunks: the three backup variants share one input, the two font variants keep theirs.
    assert result.report.chunks == 5
    # (The answer units' vectors, valid.index.units, are embedded from each variant's own text on top.)
    assert result.report.embedding.inputs == 3 and result.report.embedding.embedded == 3
    assert result.report.embedding.variants_sharing == 2

    question = "How often does it save a backup copy of open documents?"
    with open_active(Store(tmp_path / "state")) as release:
        for profile in PROFILES:
            hits = release.search_vector(embedder.embed_query(question), profile, k=10)
            assert len(hits) == 2  # exactly this profile's backup variant and its font variant
            found = release.get_chunks([h.chunk_id for h in hits])
            assert all(c.scope[profile] for c in found)
            backup = next(c for c in found if c.topic_id == "backup")
            assert PRODUCT[profile] in backup.text  # the right variant's own text
            assert not any(PRODUCT[other] in backup.text for other in PROFILES if other != profile)
            # BM25 keeps each variant's exact text: its own edition's name finds it, the others' nothing.
            for other in PROFILES:
                edition = PRODUCT[other].split()[-1]  # 'Editor', 'Author', 'Developer'
                found_ids = [h.chunk_id for h in release.search_bm25(edition, profile, 10)]
                assert found_ids == ([backup.id] if other == profile else [])
        vectors = release._collection.get(ids=[c.id for c in backups], include=["embeddings"])["embeddings"]
    assert all(list(v) == list(vectors[0]) for v in vectors)  # one shared vector, three records
