"""`valid export` of the second bundled sample (sample_maps/corvane/): two products, eight releases,
profiled with the props specialization @release. What a reader of each release must see, and only
that release: changed defaults, removed and added commands, a deprecated option, keyref text."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import CORVANE

CLI = ["cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]
AGENT = ["agent-1.4.0", "agent-2.0.0", "agent-2.1.0"]


def read(path: Path):
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def in_scope(chunk) -> set[str]:
    return {p for p, kept in chunk["scope"].items() if kept}


def shown_to(chunks, profile: str, base_id: str) -> list[dict]:
    """The variants of one chunk that a reader of `profile` sees."""
    return [c for c in chunks if c["id"].split("~")[0] == base_id and profile in in_scope(c)]


def text_for(chunks, profile: str, base_id: str) -> str:
    (chunk,) = shown_to(chunks, profile, base_id)  # exactly one variant per reader
    return chunk["text"]


def build_text(chunks, profile: str) -> str:
    return "\n".join(c["title"] + "\n" + c["text"] for c in chunks if profile in in_scope(c))


def test_one_profile_per_release_with_the_scheme_labels_and_no_warnings(corvane_export):
    header, chunks = read(corvane_export)
    assert header["attribute"] == "release"
    assert [p["name"] for p in header["profiles"]] == CLI + AGENT
    labels = {p["name"]: p["labels"] for p in header["profiles"]}
    assert labels["cli-2.4.1"] == ["Corvane CLI 2.4.1", "Corvane CLI v2.4.1", "Corvane 2.4.1", "Driftline"]
    assert labels["agent-2.0.0"] == ["Corvane Agent 2.0.0", "Corvane Agent v2.0.0", "corvane-agent 2.0.0"]
    assert header["warnings"] == []
    assert header["counts"]["kept_by_no_profile"] == 0
    assert header["counts"]["chunks"] == len(chunks)


def test_a_changed_default_shows_each_reader_only_their_release_value(corvane_export):
    _, chunks = read(corvane_export)
    expected = {"cli-1.0.0": "4", "cli-1.1.0": "4", "cli-2.0.0": "8", "cli-2.3.0": "8", "cli-2.4.1": "16"}
    for profile, default in expected.items():
        text = text_for(chunks, profile, "cli/ref-push.dita#corvane-push/push-options")
        assert re.findall(r"^--parallel N \| (\d+) \|", text, re.M) == [default], profile
    ports = {p: re.findall(r"^port \| (\d+) \|", text_for(chunks, p, "agent/configuration.dita#agent-configuration/agent-settings"), re.M)
             for p in AGENT}
    assert ports == {"agent-1.4.0": ["8470"], "agent-2.0.0": ["9470"], "agent-2.1.0": ["9470"]}
    # Releases that agree share one variant; the variant's suffix names exactly them.
    (shared,) = shown_to(chunks, "agent-2.0.0", "agent/configuration.dita#agent-configuration/agent-settings")
    assert shared["id"].endswith("~agent-2.0.0+agent-2.1.0") and in_scope(shared) == {"agent-2.0.0", "agent-2.1.0"}


def test_removed_and_added_commands_are_in_scope_only_for_the_releases_that_have_them(corvane_export):
    _, chunks = read(corvane_export)
    scope_of = {}
    for c in chunks:
        scope_of.setdefault(c["source"]["path"], set()).update(in_scope(c))
    assert scope_of["cli/ref-mirror.dita"] == {"cli-1.0.0", "cli-1.1.0"}  # removed in 2.0.0
    assert scope_of["cli/ref-sync.dita"] == {"cli-2.0.0", "cli-2.3.0", "cli-2.4.1"}  # added in 2.0.0
    assert scope_of["cli/ref-prune.dita"] == {"cli-2.3.0", "cli-2.4.1"}
    assert scope_of["cli/ref-watch.dita"] == {"cli-2.4.1"}
    # Beyond its own page: the command's name reaches no reader of a release without it, except the
    # release notes of the release that removed it.
    mentions = {p for p in CLI + AGENT if "corvane mirror" in build_text(chunks, p)}
    assert mentions == {"cli-1.0.0", "cli-1.1.0", "cli-2.0.0"}
    assert "corvane mirror" in text_for(chunks, "cli-2.0.0", "cli/release-notes.dita#cli-release-notes/notes-2.0.0")
    assert {p for p in CLI + AGENT if "corvane watch" in build_text(chunks, p)} == {"cli-2.4.1"}


def test_a_deprecated_option_is_flagged_in_its_deprecating_release_and_gone_after_removal(corvane_export):
    _, chunks = read(corvane_export)
    rows = {p: [line for line in text_for(chunks, p, "cli/ref-push.dita#corvane-push/push-options").splitlines()
                if line.startswith("--compress |")] for p in CLI}
    assert rows["cli-1.0.0"] == ["--compress | off | Compress chunks with gzip before they are uploaded."]
    assert len(rows["cli-1.1.0"]) == 1 and "Deprecated: use --compression gzip" in rows["cli-1.1.0"][0]
    assert rows["cli-2.0.0"] == rows["cli-2.3.0"] == rows["cli-2.4.1"] == []
    assert "Removed: --compress." in text_for(chunks, "cli-2.0.0", "cli/release-notes.dita#cli-release-notes/notes-2.0.0")


def test_keyref_text_resolves_per_release_including_inside_conrefd_steps(corvane_export):
    _, chunks = read(corvane_export)
    for profile in CLI:
        steps = shown_to(chunks, profile, "cli/install.dita#install-cli/install-steps")
        assert len(steps) == 1 and in_scope(steps[0]) == {profile}  # the version differs in every build
        assert f"The command prints {profile.removeprefix('cli-')}." in steps[0]["text"]
        signin = "corvane login" if profile.startswith("cli-1") else "corvane auth login"
        assert f"Sign in to your Corvane account with {signin}." in steps[0]["text"]  # conref + keyref
    locations = {p: text_for(chunks, p, "cli/configuration.dita#cli-configuration/location") for p in CLI}
    assert all("~/.corvane.toml" in locations[p] for p in CLI[:2])
    assert all("~/.config/corvane/config.toml" in locations[p] for p in CLI[2:])
    (old,) = shown_to(chunks, "cli-1.0.0", "cli/configuration.dita#cli-configuration/location")
    assert old["id"].endswith("~cli-1.0.0+cli-1.1.0")


def test_the_products_share_only_the_glossary(corvane_export):
    _, chunks = read(corvane_export)
    for c in chunks:
        scope = in_scope(c)
        if scope & set(CLI) and scope & set(AGENT):
            assert c["source"]["path"] == "glossary.dita" and scope == set(CLI + AGENT), c["id"]


def test_the_audit_reports_only_the_planted_trap(corvane_export):
    from valid.audit.findings import find
    from valid.audit.load import load_export

    findings = find(load_export(corvane_export))
    assert [(f.chunk_id, f.value, f.owners, f.rule) for f in findings] == [
        ("cli/troubleshooting.dita#cli-troubleshooting/file-skipped", "200 GiB", ["cli-2.4.1"], "keydef")
    ]


def test_the_shipped_ditavals_build_exactly_what_the_scheme_implies(corvane_export, tmp_path):
    from valid.export import export

    names = CLI + AGENT
    assert sorted(p.stem for p in CORVANE.ditavals.glob("*.ditaval")) == sorted(names)
    out = tmp_path / "explicit.jsonl"
    export(CORVANE.map, scheme=CORVANE.scheme, profiles=[(n, CORVANE.ditavals / f"{n}.ditaval") for n in names], out=out)
    _, explicit = read(out)
    _, implied = read(corvane_export)
    assert [(c["id"], c["text"], c["scope"]) for c in explicit] == [(c["id"], c["text"], c["scope"]) for c in implied]


def test_exporting_twice_gives_byte_identical_files(corvane_export, tmp_path):
    from valid.export import export

    again = tmp_path / "again.jsonl"
    export(CORVANE.map, scheme=CORVANE.scheme, out=again)
    assert again.read_bytes() == corvane_export.read_bytes()
