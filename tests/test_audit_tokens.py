"""The distinctive-token grammar the audit and the answer checks share (valid.tokens)."""

import pytest

from valid import tokens
from valid.tokens import classify, label_unit, mentions, phrase_pattern, scan, segments, states


def values(text):
    return [(t.value, t.kind) for t in scan(text)]


@pytest.mark.parametrize(
    "run, kind",
    [
        ("v2-alpha-tpuv6e", "version"),
        ("tpu-vm-tf-2.18.0-pjrt", "version"),
        ("0.4.35", "version"),
        ("v6e-8", "machine-type"),
        ("tpu7x-standard-4t", "machine-type"),
        ("ct5p-hightpu-4t", "identifier"),
        ("2x2x1", "machine-type"),
        ("us-central2-b", "identifier"),
        ("v6e", None),  # a generation name, not a value
        ("tpu7x", None),
        ("HBM2e", None),
        ("my-tpu", None),  # no digit
        ("1.5", None),  # a decimal number
        ("e.g", None),
    ],
)
def test_classify_distinctive_tokens(run, kind):
    assert classify(run) == kind


def test_scan_takes_whole_tokens_only():
    text = "Use v6e-8 (not v6e) and v2-alpha-tpuv6e-preview or v2-alpha-tpuv6e."
    assert values(text) == [
        ("v6e-8", "machine-type"),
        ("v2-alpha-tpuv6e-preview", "version"),
        ("v2-alpha-tpuv6e", "version"),
    ]


def test_flag_value_is_the_token_when_distinctive_else_the_flag():
    assert values("--version=v2-alpha-tpuv6e") == [("v2-alpha-tpuv6e", "version")]
    assert values("LIBTPU_INIT_ARGS=--xla_enable_async_all_gather=true") == [
        ("--xla_enable_async_all_gather=true", "flag")
    ]
    assert values("--zone=${ZONE} --internal-ips") == []


@pytest.mark.parametrize(
    "text, value",
    [
        ("Each VM has 4 chips.", "4 chips"),
        ("a 4-chip VM", "4 chips"),
        ("Each VM has 4 TPU chips.", "4 chips"),
        ("95 GB of HBM", "95 GB"),
        ("95GB", "95 GB"),
        ("4,614 TFLOPS per chip", "4614 TFLOPs"),
        ("1 chip", "1 chip"),
    ],
)
def test_quantities_are_canonical(text, value):
    assert [t.value for t in scan(text) if t.kind == "quantity"] == [value]


def test_bare_numbers_and_other_units_are_not_tokens():
    assert values("Step 8 takes about 4 minutes; keep 8 terminals open.") == []
    # The 4 of tpu7x-standard-4t is part of the machine type, not a quantity.
    assert values("tpu7x-standard-4t chips") == [("tpu7x-standard-4t", "machine-type")]


def test_segments_split_clauses_and_join_continued_lines():
    text = "For TPU v6e, run:\ngcloud create x \\\n  --version=v2-alpha-tpuv6e\nDone. Next; last"
    parts = [text[s.start : s.end].strip() for s in segments(text)]
    assert parts == [
        "For TPU v6e, run:",
        "gcloud create x \\\n  --version=v2-alpha-tpuv6e",
        "Done.",
        "Next;",
        "last",
    ]
    assert [s.lead_in for s in segments(text)] == [True, False, False, False, False]


def test_phrase_pattern_respects_token_boundaries():
    pattern = phrase_pattern("TPU v6e")
    assert pattern.search("on tpu  v6e, run")
    assert not pattern.search("TPU v6e-8")


# -- the value shapes answers use (tables, number words, labels, versions, flags, code) ----------


def labelled(text):
    return [(t.value, t.kind, t.label) for t in scan(text)]


@pytest.mark.parametrize(
    "text, value",
    [
        ("Each VM has eight chips.", "8 chips"),
        ("Four chips share one host.", "4 chips"),
        ("a four-chip VM", "4 chips"),
        ("a dozen cores", "12 cores"),
        ("twenty TPU chips", "20 chips"),
    ],
)
def test_number_words_with_a_unit_are_quantities(text, value):
    assert [t.value for t in scan(text) if t.kind == "quantity"][:1] == [value]


def test_number_words_without_a_unit_are_not_values():
    assert scan("one of the hosts; eight terminals; two options") == []


def test_a_table_row_value_is_a_quantity_in_its_labels_unit():
    table = "Specification | Value\nChips per host | 8\nHBM capacity per chip | 32 GiB\nChips per Pod | 8,960"
    assert labelled(table) == [
        ("8 chips", "quantity", "Chips per host"),
        ("32 GiB", "quantity", "HBM capacity per chip"),
        ("8960 chips", "quantity", "Chips per Pod"),
    ]
    # A row on its own (no header line) is a row too.
    assert labelled("Chips per VM | 8") == [("8 chips", "quantity", "Chips per VM")]


def test_a_column_header_names_the_unit_when_the_row_label_does_not():
    (shape, count) = scan("Accelerator type | Chips\nv5p-8 | 4")
    assert (shape.value, shape.kind) == ("v5p-8", "machine-type")
    assert (count.value, count.kind, count.label, count.header) == ("4 chips", "quantity", "v5p-8", "Chips")


def test_a_bare_number_after_a_label_is_a_value():
    assert labelled("HBM per chip: 32") == [("32", "number", "HBM per chip")]
    assert labelled("For v5p, chips per VM: 4.") == [("4 chips", "quantity", "chips per VM")]
    assert labelled("Memory (GiB): 95") == [("95 GiB", "quantity", "Memory (GiB)")]
    # What it measures comes before "per": HBM per chip counts HBM, not chips.
    assert label_unit("HBM per chip") is None and label_unit("Chips per VM") == "Chips"


def test_numbers_that_are_not_after_a_label_stay_bare():
    assert scan("Step 1: 8 terminals") == [] and scan("at 10:30 the job starts") == []
    assert scan("Run 3 jobs | keep 8") == [] or all(t.kind != "number" for t in scan("Run 3 jobs | keep 8"))


@pytest.mark.parametrize(
    "text, version",
    [("Use 2.4.1 or later.", "2.4.1"), ("Acme CLI v2.4.1", "v2.4.1"), ("since version 2.4", "2.4"),
     ("release 3.10 adds it", "3.10")],
)  # fmt: skip
def test_versions_semver_dotted_v_prefixed_and_named(text, version):
    assert [(t.value, t.kind) for t in scan(text)] == [(version, "version")]


def test_answer_values_add_code_spans_commands_and_flags():
    text = "Run `widget list` first.\nwidget create my-widget --size=large --dry-run\nThe --force flag skips it."
    assert [(t.value, t.kind) for t in tokens.values(text)] == [
        ("widget list", "code"),
        ("widget create my-widget --size=large --dry-run", "command"),
        ("--force", "flag"),
    ]
    # A flag with a distinctive value is one value in an answer (the audit sees the value).
    assert [(t.value, t.kind) for t in tokens.values("pass --version=v2-alpha-tpuv6e")] == [
        ("--version=v2-alpha-tpuv6e", "flag")
    ]
    # A command after a lead-in, continued over lines.
    text = "To list them, run:\nacme versions list \\\n  --zone=${ZONE}"
    assert [t.kind for t in tokens.values(text)] == ["command"]


def test_prose_before_a_flag_is_not_a_command():
    assert [(t.value, t.kind) for t in tokens.values("You pass it with the --version flag.")] == [("--version", "flag")]


def test_states_compares_canonical_values_with_their_labels():
    chunk = "Specification | Value\nChips per host | 8\nHBM capacity per chip | 32 GiB\n\nA host has 8 chips."
    said = lambda text: all(states(chunk, v) for v in tokens.values(text))  # noqa: E731
    assert said("eight chips") and said("8-chip host") and said("Chips per host | 8")
    assert said("HBM per chip: 32") and said("HBM capacity per chip: 32 GiB")
    assert not said("Chips per VM | 8")  # stated for a host, not a VM
    assert not said("HBM per chip: 8")  # 8 is stated, but as chips per host
    assert not said("four chips") and not said("Chips per host | 4")


def test_states_code_commands_and_flags_loosely_but_exactly():
    chunk = "gcloud compute create x \\\n  --zone=us-east5-a \\\n  --version v2-alpha-tpuv6e"
    assert all(states(chunk, v) for v in tokens.values("`gcloud compute create x --zone=us-east5-a`"))
    assert all(states(chunk, v) for v in tokens.values("--version=v2-alpha-tpuv6e and --zone"))
    assert not any(states(chunk, v) for v in tokens.values("--version=v2-alpha-tpuv5 and --project"))


@pytest.mark.parametrize(
    "text, value, expected",
    [
        ("Each VM has eight chips.", "8 chips", True),
        ("Each VM has 128 chips.", "8 chips", False),
        ("Each TPU v5p VM has 4 chips.", "Chips per VM | 4", True),
        ("A v6e host has 8 chips.", "Chips per VM | 8", False),
        ("Each v5p VM has four chips.", "4", True),
        ("Use v5p-8.", "8", False),
        ("Use Compute Engine or GKE.", "compute engine", True),
        ("Pass --version=v2-alpha-tpuv6e.", "v2-alpha-tpuv6e", True),
        ("Pass --version=v2-alpha-tpuv6e-preview.", "v2-alpha-tpuv6e", False),
    ],
)
def test_mentions_finds_expected_and_forbidden_values_in_any_shape(text, value, expected):
    assert mentions(text, value) is expected


@pytest.mark.parametrize(
    "label, unit",
    [("Chips per VM", "Chips"), ("Number of TPU chips", "chips"), ("VM chips", "chips"), ("Memory (GiB)", "GiB"),
     ("HBM per chip", None), ("HBM capacity", None), ("Hosts per slice", "Hosts")],
)  # fmt: skip
def test_the_unit_a_label_names_is_what_it_measures(label, unit):
    assert label_unit(label) == unit


def test_a_colon_label_is_the_phrase_before_the_colon_not_its_clause():
    assert [(t.value, t.label) for t in scan("A VM has four chips and HBM per chip: 95.")] == [
        ("4 chips", ""), ("95", "HBM per chip")
    ]  # fmt: skip


def test_a_first_row_with_numbers_is_a_row_not_a_header():
    assert [(t.value, t.label) for t in scan("Chips per VM | 4\nHBM capacity per chip | 95 GiB")] == [
        ("4 chips", "Chips per VM"), ("95 GiB", "HBM capacity per chip")
    ]  # fmt: skip


def test_answer_values_read_everyday_measures_that_the_audit_leaves_out():
    text = "Wait 30 seconds, then a 5-minute check; keep 50% free and 4 devices under 300 W."
    assert [(t.value, t.kind) for t in tokens.values(text)] == [
        ("30 seconds", "quantity"), ("5 minutes", "quantity"), ("50 %", "quantity"), ("4 devices", "quantity"),
        ("300 W", "quantity"),
    ]  # fmt: skip
    assert all(t.kind != "quantity" for t in scan(text))  # no time, share or power value is owned
    assert states("Retries stop after 30 s.", tokens.values("30 seconds")[0])


def test_a_note_label_says_nothing_about_what_is_measured():
    (value,) = tokens.values("Note: 4 chips per VM")
    assert value.label == "Note" and states("Each VM has 4 chips.", value)
