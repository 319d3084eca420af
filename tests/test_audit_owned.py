"""The owned-value table: rules 1 and 2, lookups for the answer checks, the stable format."""

import json

import pytest

from fixtures.audit.exports import OWNED, chunk, export
from fixtures.audit.planted import planted_export
from valid.audit import OwnedValueTable, find, owned_values
from valid.tokens import lookup_key
from valid.errors import ConfigError

ALL = ["v5p", "v6e", "tpu7x"]


def test_keydef_and_scheme_values_are_owned_by_their_generations():
    table = owned_values(export([]))
    assert table.owners("v2-alpha-tpuv6e") == ["v6e"]
    assert table.owners("v2-alpha-tpuv5") == ["v5p"]
    assert table.owners("tpu7x-standard-4t") == ["tpu7x"]
    row = table.row("v2-alpha-tpuv6e")
    assert row.rule == "keydef"
    assert [(o.rule, o.family) for o in row.origins] == [
        ("keydef", "key:tpu-software-version"),
        ("scheme-data", "scheme-data"),
    ]


def test_bare_key_number_is_owned_only_with_the_unit_its_key_names():
    table = owned_values(export([]))
    assert table.owners("4") == []
    assert table.owners("8") == []
    assert table.owners("4 chips") == ["v5p", "tpu7x"]
    assert table.owners("8 TPU chips") == ["v6e"]  # compared in canonical form
    assert [o.text for o in table.find("a VM with 8 TPU chips, step 8")] == ["8 TPU chips"]


def test_prose_key_text_is_ignored_with_a_reason():
    table = owned_values(export([]))
    assert table.owners("no Cloud TPU API software version (use Compute Engine or GKE)") == []
    (ignored,) = table.ignored
    assert ignored.key == "tpu7x-version-note"
    assert "plain words" in ignored.reason


def test_distinctive_token_seen_by_one_profile_only_is_owned_by_it():
    table = owned_values(
        export(
            [
                chunk("a.dita#a/x", "Each chip has 95 GB of HBM; slices start at v5p-16.", ["v5p"]),
                chunk("b.dita#b/x", "Each chip has 32 GB of HBM in us-central2-b.", ["v6e"]),
                chunk("c.dita#c/x", "Test in us-central2-b with 95 GB.", ["tpu7x"]),
                chunk("d.dita#d/x", "Shared text mentions v5p-16.", ALL),
            ]
        )
    )
    assert table.owners("v5p-16") == ["v5p"]  # the shared chunk is no evidence against it
    assert table.owners("32 GB") == ["v6e"]
    assert table.owners("95 GB") == []  # seen by v5p's page and TPU7x's page
    assert table.owners("us-central2-b") == []


def test_a_value_shared_content_uses_widely_is_not_owned_by_the_one_profile_that_also_has_it():
    # DITA-OT's docs: every transformation topic (shown to all) runs `dita --input=input-file`, and
    # so does the one Windows-only topic (HTML Help). That is the shared content's flag, not Windows'.
    shared = [chunk(f"t{i}.dita#t{i}/body", f"Run dita --input=input-file --format=f{i}.", ALL) for i in range(3)]
    own = chunk("hh.dita#hh/body", "Run dita --input=input-file --format=htmlhelp.", ["v6e"])
    table = owned_values(export([*shared, own]))
    assert table.owners("--input=input-file") == []
    assert table.owners("--format=htmlhelp") == ["v6e"]  # only the Windows-only topic has it
    (ignored,) = [i for i in table.ignored if i.value == "--input=input-file"]
    assert ignored.rule == "distinctive" and "3 chunks shown to several profiles use it" in ignored.reason
    assert find(export([*shared, own])) == []


def test_a_digits_only_version_that_shared_content_repeats_is_not_owned_by_the_profile_that_repeats_it_more():
    # Oxygen's user guide: the Editor-only debugger pages name "Saxon 6.5.5" often, and so do the
    # processor pages Editor and Author share. A weak shape is owned by repetition; repeated in
    # shared content as often as that, it is the shared content's value too.
    own = [chunk(f"e{i}.dita#e{i}/x", f"Debug XSLT 1 stylesheets with Saxon 6.5.5 (view {i}).", ["v6e"]) for i in range(5)]
    shared = [chunk(f"s{i}.dita#s{i}/x", f"Saxon 6.5.5 runs XSLT 1 transformations (page {i}).", ["v5p", "v6e"])
              for i in range(3)]
    table = owned_values(export([*own, *shared]))
    assert table.owners("6.5.5") == []
    assert find(export([*own, *shared])) == []
    # one shared chunk: still v6e's by repetition, and that chunk is reported
    table = owned_values(export([*own, shared[0]]))
    assert table.owners("6.5.5") == ["v6e"]
    assert [f.value for f in find(export([*own, shared[0]]))] == ["6.5.5"]


def test_a_value_one_shared_chunk_leaks_stays_owned_when_its_profile_uses_it_as_often():
    own = chunk("v6e.dita#v6e/x", "Use --xla_tpu_enable_latency_hiding=true on TPU v6e.", ["v6e"])
    leak = chunk("s.dita#s/x", "Set --xla_tpu_enable_latency_hiding=true for large slices.", ALL)
    table = owned_values(export([own, leak]))
    assert table.owners("--xla_tpu_enable_latency_hiding=true") == ["v6e"]
    assert [f.value for f in find(export([own, leak]))] == ["--xla_tpu_enable_latency_hiding=true"]


def reported(table) -> set[str]:
    """Rule-distinctive values the audit may report (the others serve the answer checks only)."""
    return {r.value for r in table.rows if r.rule == "distinctive" and lookup_key(r.value) in table.why}


def test_the_audit_reports_a_digits_only_value_or_quantity_beside_its_owners_name_or_repeated():
    own = [
        chunk("a.dita#a/x", "Criteria | Level\n504.2.2 PDF export | Supports", ["v5p"], type="table"),
        chunk("a.dita#a/y", "Memory | 16 GB", ["v5p"], type="table"),
        chunk("b.dita#b/x", "TPU v6e needs JAX 0.7.2.", ["v6e"]),
        *(chunk(f"c.dita#c/{i}", f"Step {i}: keep 12 GB free for the 4.0.1 runtime.", ["tpu7x"]) for i in range(3)),
    ]
    table = owned_values(export(own, owned=[]))
    assert table.owners("504.2.2") == ["v5p"] and table.owners("16 GB") == ["v5p"]  # for the answer checks
    assert reported(table) == {"0.7.2", "4.0.1", "12 GB"}  # not 504.2.2 or 16 GB: one chunk, no name
    assert "beside v6e's name" in table.why["0.7.2"]
    assert "3 chunks shown only to tpu7x" in table.why["4.0.1"]


def test_example_values_file_names_ranges_and_addresses_are_never_reported_by_their_shape():
    text = (
        "Set region_filter to real_value1 in us-east-1, load orders_2024.csv and setup-1.2.tar.gz, "
        "upgrade within 2.x, connect to 192.168.10.25, read UTF-8."
    )
    table = owned_values(export([chunk(f"a.dita#a/{i}", f"TPU v5p: {text}", ["v5p"]) for i in range(3)], owned=[]))
    assert table.owners("real_value1") == ["v5p"]
    assert reported(table) == set()


def test_a_machine_type_a_flag_or_a_lettered_version_is_reported_on_one_chunk():
    table = owned_values(
        export([chunk("a.dita#a/x", "Use v5p-16, --xla_fast=true and 5.1.0-beta.2.", ["v5p"])], owned=[])
    )
    assert reported(table) == {"v5p-16", "--xla_fast=true", "5.1.0-beta.2"}


def test_a_table_read_back_from_json_keeps_no_evidence_and_find_computes_it_again():
    table = owned_values(export([chunk("a.dita#a/x", "Use v5p-16.", ["v5p"])], owned=[]))
    assert OwnedValueTable.from_json(table.to_json()).why is None


def test_a_shared_step_split_into_variants_is_no_evidence():
    # The shared step's v6e-8 appears in every variant: shown to every profile, so nobody owns it.
    steps = [
        chunk(f"s.dita#s/steps~{p}", f"1. Only for {p}.\n2. Describe v6e-8.", [p], type="steps") for p in ALL
    ]
    table = owned_values(export(steps, owned=[]))
    assert table.owners("v6e-8") == []


def test_values_owned_outside_a_scope_are_what_an_answer_must_not_contain():
    table = owned_values(export([]))
    outside = {r.value for r in table.values_owned_outside(["tpu7x"])}
    assert {"v2-alpha-tpuv5", "v2-alpha-tpuv6e", "8 chips", "v5p-8", "v6e-8"} <= outside
    assert "4 chips" not in outside  # TPU7x owns it too
    assert "tpu7x-standard-4t" not in outside
    with pytest.raises(ConfigError, match="unknown profile"):
        table.values_owned_outside(["v4"])


def test_find_outside_reports_only_values_the_scope_does_not_own():
    table = owned_values(export([]))
    text = "Use tpu7x-standard-4t with 4 chips, not --version=v2-alpha-tpuv6e."
    assert [o.text for o in table.find_outside(text, ["tpu7x"])] == ["v2-alpha-tpuv6e"]


def test_as_mapping_gives_value_to_owners():
    mapping = owned_values(export([])).as_mapping()
    assert mapping["v2-alpha-tpuv6e"] == ["v6e"]
    assert mapping["4 chips"] == ["v5p", "tpu7x"]


def test_stable_format_round_trips_and_is_byte_identical():
    first = owned_values(planted_export()).to_json()
    second = owned_values(planted_export()).to_json()
    assert first == second
    data = json.loads(first)
    assert (data["format"], data["version"]) == ("valid.owned-values", 1)
    assert data["profiles"] == ALL
    assert list(data["values"][0]) == ["value", "kind", "profiles", "rule", "origins", "context"]
    keys = [v["value"].casefold() for v in data["values"]]
    assert keys == sorted(keys)
    assert OwnedValueTable.from_json(first).to_json() == first


def test_from_json_refuses_an_unknown_format():
    with pytest.raises(ConfigError, match="valid.owned-values"):
        OwnedValueTable.from_dict({"format": "something-else", "version": 1})


def test_owned_values_do_not_depend_on_the_order_of_owned_values_in_the_header():
    forward = owned_values(export([], owned=OWNED)).to_json()
    backward = owned_values(export([], owned=list(reversed(OWNED)))).to_json()
    assert forward == backward


def test_values_in_table_rows_and_number_words_are_owned_in_canonical_form():
    table = owned_values(
        export(
            [
                chunk("a.dita#a/specs", "Specification | Value\nCores per node | 6\nHBM capacity per chip | 95 GiB", ["v5p"]),
                chunk("b.dita#b/specs", "Specification | Value\nCores per node | 12\nHBM capacity per chip | 32 GiB", ["v6e"]),
                chunk("c.dita#c/x", "Each TPU7x node has twelve cores.", ["tpu7x"]),
            ],
            owned=[],
        )
    )
    assert table.owners("6 cores") == ["v5p"]  # from the row "Cores per node | 6"
    assert table.owners("12 cores") == []  # v6e's row and TPU7x's "twelve cores" are the same value
    assert [(o.text, o.row.value) for o in table.find("Each node has six cores.")] == [("six cores", "6 cores")]
    assert [(o.text, o.row.value) for o in table.find("Cores per node | 6")] == [("6", "6 cores")]


def test_a_bare_number_after_a_label_is_the_owned_quantity_its_label_describes():
    table = owned_values(
        export(
            [
                chunk("a.dita#a/specs", "Specification | Value\nHBM capacity per chip | 95 GiB", ["v5p"]),
                chunk("b.dita#b/arch", "Each v6e chip has 32 GiB of high-bandwidth memory (HBM).", ["v6e"]),
            ],
            owned=[],
        )
    )
    assert "hbm" in table.row("32 GiB").context and "capacity" in table.row("95 GiB").context
    assert [(o.text, o.row.value) for o in table.find_outside("HBM per chip: 32", ["v5p"])] == [("32", "32 GiB")]
    assert [o.row.value for o in table.find("HBM capacity per chip | 95")] == ["95 GiB"]
    # The number alone, or after a label the quantity was never stated with, is not the value.
    assert table.find("HBM per chip is 32") == [] and table.find("Cores per chip: 32") == []
    # Keydef quantities carry their key's words: "Chips per VM" is the chips-per-vm key's value.
    keyed = owned_values(export([]))
    assert {"chip", "vm"} <= set(keyed.row("8 chips").context)
    assert [o.row.value for o in keyed.find("VM chips: 8")] == ["8 chips"]
