"""Each value shape the grammar reads is checked: a wrong generation's value fails, in every shape.

On the bundled sample, v5p has 4 chips per VM and 95 GiB of HBM per chip, v6e has 8 chips per host
and 32 GiB; their software versions differ. A v5p answer that states v6e's value, as a table row, a
number word, a `label: number`, a version or a flag, fails the checks (values_grounded against the
v5p chunk it cites, out_of_scope_values against the owned-value table); the same answer with v5p's
value passes (so the checks are not failing everything).
"""

import pytest

from valid.answer.check import check_answer
from valid.answer.models import Draft, DraftStep, EvidenceChunk
from valid.audit import owned_values
from valid.audit.load import load_export


@pytest.fixture(scope="module")
def sample(sample_build):
    export = load_export(sample_build.export)
    chunks = {
        c.id: EvidenceChunk(
            id=c.id, alias=f"c{i}", text=c.text, title=c.title, breadcrumbs=c.breadcrumbs, scope=c.in_scope()
        )
        for i, c in enumerate(export.chunks, start=1)
    }
    return chunks, owned_values(export)


SPECS = "v5p.dita#v5p/v5p-specs"
ARCH = "v5p.dita#v5p/system-architecture"
CONFIG = "v5p.dita#v5p/configurations"


def check(sample, text, cite, answer="See the steps."):
    chunks, table = sample
    draft = Draft(scope=["v5p"], answer=answer, steps=[DraftStep(text=text, cite=cite)])
    return check_answer(draft, ["v5p"], [chunks[cite]], table)


def failed(report):
    return {f.check for f in report.failures}


def test_a_row_value_from_another_generation_fails_the_checks(sample):
    report = check(sample, "Chips per VM | 8", SPECS)
    assert failed(report) == {"values_grounded", "out_of_scope_values"}, report.failures
    assert any("'8 chips' (as 'Chips per VM')" in f.reason for f in report.failures)
    assert any("'8' belongs to v6e" in f.reason for f in report.failures)
    assert check(sample, "Chips per VM | 4", SPECS).passed


def test_a_number_word_from_another_generation_fails_the_checks(sample):
    report = check(sample, "Each TPU v5p VM has eight chips.", ARCH)
    assert failed(report) == {"values_grounded", "out_of_scope_values"}, report.failures
    assert any("'eight chips' belongs to v6e" in f.reason for f in report.failures)
    # The same number in words is grounded by its digit form in the chunk ("4 chips").
    assert check(sample, "Each TPU v5p VM has four chips.", ARCH).passed


def test_label_colon_number_from_another_generation_fails_the_checks(sample):
    report = check(sample, "HBM per chip: 32", SPECS)
    assert failed(report) == {"values_grounded", "out_of_scope_values"}, report.failures
    assert any("'32' belongs to v6e" in f.reason for f in report.failures)
    # v5p's value, with the label worded differently from the row ("HBM capacity per chip | 95 GiB").
    assert check(sample, "HBM per chip: 95", SPECS).passed
    assert check(sample, "HBM per chip: 95 GiB", SPECS).passed


def test_a_version_from_another_generation_fails_the_checks(sample):
    report = check(sample, "Use the software version v2-alpha-tpuv6e.", CONFIG)
    assert failed(report) == {"values_grounded", "out_of_scope_values"}, report.failures
    assert check(sample, "Use the software version v2-alpha-tpuv5.", CONFIG).passed


def test_a_flag_from_another_generation_fails_the_checks(sample):
    report = check(sample, "Pass --accelerator-type=v6e-8 when you create the VM.", CONFIG)
    assert failed(report) == {"values_grounded", "out_of_scope_values"}, report.failures
    assert any("'--accelerator-type=v6e-8'" in f.reason for f in report.failures)
    assert check(sample, "Pass --accelerator-type=v5p-8 when you create the VM.", CONFIG).passed


def test_a_wrong_value_in_the_answer_sentence_fails_even_when_the_steps_are_right(sample):
    report = check(sample, "Chips per VM | 4", SPECS, answer="A v5p VM has eight chips.")
    assert failed(report) == {"values_grounded", "out_of_scope_values"}
    assert all(f.step == -1 for f in report.failures)


def test_a_row_value_is_grounded_only_with_its_label(sample):
    # 2 is in the v5p table, but as TensorCores per chip, not as chips per VM.
    report = check(sample, "Chips per VM | 2", SPECS)
    assert "values_grounded" in failed(report)
    assert check(sample, "TensorCores per chip | 2", SPECS).passed
    assert not check(sample, "HBM per chip: 4", SPECS).passed  # 4 is chips per VM, not HBM


def test_a_number_inside_a_longer_number_of_the_asked_generation_is_no_cross_reference(sample):
    # "8" is v6e's; the v5p chunk's "8,960" must not excuse "Chips per VM | 8" in a v5p answer.
    assert "out_of_scope_values" in failed(check(sample, "Chips per VM | 8", SPECS))
