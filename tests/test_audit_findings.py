"""Scope findings: text shown to several generations holding a value owned by one (find)."""

from fixtures.audit.exports import chunk, export
from valid.audit import find, fingerprint

ALL = ["v5p", "v6e", "tpu7x"]
TRAP = "2. Create the VM.\ngcloud compute tpus tpu-vm create x \\\n  --version=v2-alpha-tpuv6e"


def test_shared_step_with_one_generations_version_is_reported_with_file_and_line():
    (finding,) = find(export([chunk("create-tpu-vm.dita#create-tpu-vm/steps", TRAP, ALL, line=41)]))
    assert (finding.path, finding.line) == ("create-tpu-vm.dita", 41)
    assert finding.chunk_id == "create-tpu-vm.dita#create-tpu-vm/steps"
    assert (finding.value, finding.owners, finding.rule, finding.key) == (
        "v2-alpha-tpuv6e",
        ["v6e"],
        "keydef",
        "tpu-software-version",
    )
    assert finding.shown_to == ALL
    assert "--version=v2-alpha-tpuv6e" in finding.excerpt
    assert finding.summary().startswith("create-tpu-vm.dita:41: ")
    assert "\n" not in finding.summary()


def test_single_profile_chunks_never_fire():
    chunks = [chunk(f"{p}.dita#{p}/x", TRAP + " v2-alpha-tpuv5 tpu7x-standard-4t", [p]) for p in ALL]
    assert find(export(chunks)) == []


def test_shared_step_inside_variants_is_reported_once_under_the_base_id():
    chunks = [
        chunk("s.dita#s/steps~v5p", "1. Create a TPU v5p VM with v5p-8.\n" + TRAP, ["v5p"]),
        chunk("s.dita#s/steps~v6e", "1. Create a TPU v6e VM with v6e-8.\n" + TRAP, ["v6e"]),
        chunk("s.dita#s/steps~tpu7x", "1. Use GKE.\n" + TRAP, ["tpu7x"]),
    ]
    (finding,) = find(export(chunks))
    assert finding.chunk_id == "s.dita#s/steps"
    assert finding.variants == ["s.dita#s/steps~v5p", "s.dita#s/steps~v6e", "s.dita#s/steps~tpu7x"]
    assert finding.shown_to == ALL
    assert finding.value == "v2-alpha-tpuv6e"


def test_a_value_shown_only_to_its_owner_in_other_variants_text_is_not_a_finding():
    # v6e's own step carries the value unlabelled; the shared note names the generation.
    note = "\nNote: TPU v6e (Trillium) uses v2-alpha-tpuv6e."
    chunks = [
        chunk("s.dita#s/steps~v5p", "1. Create the VM." + note, ["v5p"]),
        chunk("s.dita#s/steps~v6e", "1. Create the VM.\n--version=v2-alpha-tpuv6e" + note, ["v6e"]),
        chunk("s.dita#s/steps~tpu7x", "1. Create the VM." + note, ["tpu7x"]),
    ]
    assert find(export(chunks)) == []


def test_value_owned_by_several_generations_never_fires():
    chunks = [chunk("a.dita#a/x", "Each VM has 4 chips.", ALL), chunk("b.dita#b/x", "4 chips here.", ["v5p", "v6e"])]
    assert find(export(chunks)) == []


def test_chunk_shared_by_two_generations_is_audited():
    (finding,) = find(export([chunk("m.dita#m/x", "Pass --version=v2-alpha-tpuv5.", ["v6e", "tpu7x"])]))
    assert finding.shown_to == ["v6e", "tpu7x"]
    assert finding.owners == ["v5p"]


def test_fingerprint_ignores_line_and_variant_suffix():
    before = find(export([chunk("s.dita#s/steps", TRAP, ALL, line=41)]))
    moved = find(export([chunk("s.dita#s/steps", TRAP, ALL, line=57)]))
    split = find(
        export(
            [
                chunk("s.dita#s/steps~v5p+tpu7x", TRAP, ["v5p", "tpu7x"], line=60),
                chunk("s.dita#s/steps~v6e", "0. For TPU v6e only.\n" + TRAP, ["v6e"], line=60),
            ]
        )
    )
    assert before[0].fingerprint == moved[0].fingerprint == split[0].fingerprint
    assert before[0].fingerprint == fingerprint("keydef", "v2-alpha-tpuv6e", "s.dita#s/steps", "s.dita")


def test_fingerprint_changes_with_value_chunk_or_path():
    base = fingerprint("keydef", "v2-alpha-tpuv6e", "s.dita#s/steps", "s.dita")
    assert len({
        base,
        fingerprint("scheme-data", "v2-alpha-tpuv6e", "s.dita#s/steps", "s.dita"),
        fingerprint("keydef", "v2-alpha-tpuv5", "s.dita#s/steps", "s.dita"),
        fingerprint("keydef", "v2-alpha-tpuv6e", "s.dita#s/other", "s.dita"),
        fingerprint("keydef", "v2-alpha-tpuv6e", "s.dita#s/steps", "t.dita"),
    }) == 5  # fmt: skip


def test_code_outside_the_text_is_searched():
    item = chunk("c.dita#c/x", "Run the command below.", ALL, code=["gcloud create --version=v2-alpha-tpuv6e"])
    (finding,) = find(export([item]))
    assert finding.excerpt == "gcloud create --version=v2-alpha-tpuv6e"


def test_excerpt_quotes_the_clause_that_leaks():
    text = "TPU v6e (Trillium) uses v2-alpha-tpuv6e. Everyone else: copy v2-alpha-tpuv6e too."
    (finding,) = find(export([chunk("c.dita#c/x", text, ALL)]))
    assert finding.excerpt == "Everyone else: copy v2-alpha-tpuv6e too."


def test_findings_are_sorted_and_identical_across_runs():
    chunks = [
        chunk("b.dita#b/x", "Use v5p-8.", ALL, line=3),
        chunk("a.dita#a/y", "Use v6e-8 and tpu7x-standard-4t.", ALL, line=9),
        chunk("a.dita#a/x", "Use v2-alpha-tpuv5.", ALL, line=2),
    ]
    first = find(export(chunks))
    assert [(f.path, f.line, f.value) for f in first] == [
        ("a.dita", 2, "v2-alpha-tpuv5"),
        ("a.dita", 9, "tpu7x-standard-4t"),
        ("a.dita", 9, "v6e-8"),
        ("b.dita", 3, "v5p-8"),
    ]
    assert [f.model_dump() for f in find(export(list(reversed(chunks))))] == [f.model_dump() for f in first]
