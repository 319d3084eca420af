"""The distinctive-token grammar the audit and the answer checks share (valid.audit.tokens)."""

import pytest

from valid.audit.tokens import classify, phrase_pattern, scan, segments


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
