"""check_answer: citations in scope, values grounded character for character, no out-of-scope values."""

from valid.answer.check import appears, check_answer, citable_text, extract_values, grounded
from valid.answer.models import Draft, DraftStep, EvidenceChunk

NOTE = EvidenceChunk(
    id="runtimes.dita#runtimes/tpu7x-note",
    alias="c1",
    title="TPU7x and later",
    text="The Cloud TPU API doesn't support TPU7x and later generations. Create TPU7x capacity with "
    "Compute Engine or Google Kubernetes Engine (GKE) instead.",
    scope=["tpu7x"],
)
VM = EvidenceChunk(
    id="tpu7x/tpu7x-overview.dita#tpu7x/vm",
    alias="c2",
    title="VM shape",
    text="Use the tpu7x-standard-4t machine type. Each TPU7x VM has 4 chips.",
    scope=["tpu7x"],
)
SHARED = EvidenceChunk(
    id="create-tpu-vm.dita#create/steps",
    alias="c3",
    title="Create a TPU VM",
    text="1. Run gcloud compute tpus tpu-vm create my-tpu --zone=us-central1-a --version=v2-alpha-tpuv6e",
    scope=["v5p", "v6e", "tpu7x"],
)
V6E_ONLY = EvidenceChunk(
    id="v6e.dita#v6e/arch", alias="c4", title="System architecture", text="Each v6e VM has 8 chips.", scope=["v6e"]
)
OWNED = {"v2-alpha-tpuv5": ["v5p"], "v2-alpha-tpuv6e": ["v6e"], "tpu7x-standard-4t": ["tpu7x"]}


def draft(answer, *steps, scope=("tpu7x",)):
    return Draft(scope=list(scope), answer=answer, steps=[DraftStep(text=t, cite=c) for t, c in steps])


def test_a_grounded_in_scope_answer_passes_with_counts():
    report = check_answer(
        draft(
            "The Cloud TPU API doesn't support TPU7x.",
            ("Create TPU7x capacity with Compute Engine or Google Kubernetes Engine (GKE) instead.", NOTE.id),
            ("Use the tpu7x-standard-4t machine type. Each TPU7x VM has 4 chips.", VM.id),
        ),
        ["tpu7x"],
        [NOTE, VM],
        OWNED,
    )
    assert report.passed, report.failures
    assert (report.citations, report.citations_in_scope) == (2, 2)
    assert (report.values, report.values_grounded) == (2, 2)
    assert report.out_of_scope_values == 0


def test_citation_of_a_chunk_not_given_fails():
    report = check_answer(draft("x", ("Each v6e VM has 8 chips.", V6E_ONLY.id)), ["tpu7x"], [NOTE, VM], OWNED)
    assert not report.passed
    assert [f.check for f in report.failures][:1] == ["citations_in_scope"]
    assert "not one of the chunks given" in report.failures[0].reason


def test_citation_of_a_given_chunk_whose_scope_excludes_the_answer_fails():
    # Defence in depth: even if an out-of-scope chunk were given, citing it fails.
    report = check_answer(draft("x", ("Each v6e VM has 8 chips.", V6E_ONLY.id)), ["tpu7x"], [V6E_ONLY], {})
    assert [f.check for f in report.failures] == ["citations_in_scope"]
    assert "does not include ['tpu7x']" in report.failures[0].reason


def test_citation_alias_outside_the_enum_fails():
    report = check_answer(draft("x", ("Use Compute Engine.", "c9")), ["tpu7x"], [NOTE], OWNED)
    assert report.failures[0].check == "citations_in_scope" and "'c9'" in report.failures[0].reason


def test_an_invented_flag_is_not_grounded():
    report = check_answer(
        draft("x", ("Pass --version=tpu7x-alpha when you create the VM.", NOTE.id)), ["tpu7x"], [NOTE], OWNED
    )
    assert not report.passed
    assert report.failures[0].check == "values_grounded"
    assert "'--version=tpu7x-alpha'" in report.failures[0].reason


def test_a_value_must_appear_in_the_chunk_the_step_cites_not_just_any_chunk():
    report = check_answer(draft("x", ("Each TPU7x VM has 4 chips.", NOTE.id)), ["tpu7x"], [NOTE, VM], OWNED)
    assert [f.check for f in report.failures] == ["values_grounded"]
    assert "'4 chips'" in report.failures[0].reason


def test_numbers_match_as_whole_tokens():
    assert not appears("4 chips", "Each VM has 24 chips.")
    assert appears("4 chips", "Each VM has 4 chips.")
    assert not appears("v2-alpha-tpuv5", "v2-alpha-tpuv5e")
    assert appears("--version", "--version=v2-alpha-tpuv6e")


def test_values_extracted_are_flags_commands_code_versions_and_numbers_with_units():
    values = dict(
        (v, k)
        for k, v in extract_values(
            "Run `gcloud compute tpus list` then pass --zone=us-central1-a; v6e-8 has 8 chips and 32 GB on JAX 0.4.35."
        )
    )
    assert values == {
        "gcloud compute tpus list": "code span",
        "--zone=us-central1-a": "flag",
        "v6e-8": "version",
        "8 chips": "number with unit",
        "32 GB": "number with unit",
        "0.4.35": "version",
    }


def test_a_v6e_value_in_a_tpu7x_answer_fails_even_when_its_shared_chunk_is_in_scope():
    # The planted trap: a shared step that hard-codes the v6e version is in scope for TPU7x.
    step = "Run gcloud compute tpus tpu-vm create my-tpu --zone=us-central1-a --version=v2-alpha-tpuv6e"
    report = check_answer(draft("x", (step, SHARED.id)), ["tpu7x"], [SHARED], OWNED)
    assert report.citations_in_scope == 1 and report.values_grounded == report.values
    assert [f.check for f in report.failures] == ["out_of_scope_values"]
    assert report.out_of_scope_values == 1
    assert "belongs to v6e" in report.failures[0].reason


def test_an_owned_value_in_an_answer_for_every_generation_fails():
    report = check_answer(
        draft("Use v2-alpha-tpuv6e.", ("Run gcloud compute tpus tpu-vm create my-tpu", SHARED.id), scope=("v5p", "v6e", "tpu7x")),
        ["v5p", "v6e", "tpu7x"],
        [SHARED],
        OWNED,
    )
    assert [f.check for f in report.failures] == ["out_of_scope_values"]
    assert report.failures[0].step == -1


def test_scope_other_than_the_resolved_one_and_empty_drafts_fail():
    assert check_answer(draft("x", ("Use Compute Engine.", NOTE.id), scope=("v6e",)), ["tpu7x"], [NOTE], {}).failures[
        0
    ].check == "draft_valid"
    assert check_answer(draft("nothing"), ["tpu7x"], [NOTE], {}).failures[0].check == "draft_valid"
    bad = Draft(scope=[], answer="", steps=[], error="not JSON")
    assert check_answer(bad, ["tpu7x"], [NOTE], {}).failures[0].reason == "not JSON"


# -- what a chunk states: its title and breadcrumbs, values in canonical form ----------------------

WIDGET = EvidenceChunk(
    id="api.dita#api/widget-ctor",
    alias="c1",
    title="new Widget(name[, options])",
    breadcrumbs=["Acme SDK reference", "Acme SDK 2.4.1", "Widget", "new Widget(name[, options])"],
    text="Creates a widget. The name must be unique in its project.",
    scope=["v2"],
)
OTHER = EvidenceChunk(id="api.dita#api/other", alias="c2", title="Widget.close()", text="Closes it.", scope=["v2"])


def test_a_step_quoting_the_chunk_title_is_grounded_by_that_chunk_only():
    step = ("Call `new Widget(name[, options])` to create one.", WIDGET.id)
    assert check_answer(draft("x", step, scope=("v2",)), ["v2"], [WIDGET, OTHER], {}).passed
    report = check_answer(draft("x", (step[0], OTHER.id), scope=("v2",)), ["v2"], [WIDGET, OTHER], {})
    assert [f.check for f in report.failures] == ["values_grounded"]
    assert "'new Widget(name[, options])'" in report.failures[0].reason


def test_a_version_in_the_breadcrumbs_is_grounded():
    report = check_answer(draft("This is Acme SDK 2.4.1.", ("Acme SDK 2.4.1", WIDGET.id), scope=("v2",)), ["v2"], [WIDGET], {})
    assert report.passed and report.values == 2


def test_citable_text_is_breadcrumbs_title_and_text_once_each():
    assert citable_text(WIDGET).split("\n") == [
        "Acme SDK reference", "Acme SDK 2.4.1", "Widget", "new Widget(name[, options])", WIDGET.text
    ]  # fmt: skip


def test_a_number_word_is_grounded_by_the_digits_and_a_row_by_a_clause_with_its_label():
    steps = [
        ("Each TPU7x VM has four chips.", VM.id),
        ("Chips per VM | 4", VM.id),
        ("A 4-chip VM uses the tpu7x-standard-4t machine type.", VM.id),
    ]
    report = check_answer(draft("A TPU7x VM has four chips.", *steps), ["tpu7x"], [NOTE, VM], OWNED)
    assert report.passed, report.failures
    assert (report.values, report.values_grounded) == (5, 5)


def test_a_row_whose_label_the_chunk_does_not_state_is_not_grounded():
    report = check_answer(draft("x", ("Chips per host | 4", VM.id)), ["tpu7x"], [VM], OWNED)
    assert [f.check for f in report.failures] == ["values_grounded"]
    assert "'4 chips' (as 'Chips per host')" in report.failures[0].reason


def test_a_plain_mapping_matches_owned_values_in_canonical_form():
    report = check_answer(draft("x", ("Each TPU7x VM has eight chips.", VM.id)), ["tpu7x"], [VM], {"8 chips": ["v6e"]})
    assert "out_of_scope_values" in [f.check for f in report.failures]
    assert "'eight chips' belongs to v6e" in [f.reason for f in report.failures if f.check == "out_of_scope_values"][0]


def test_a_value_read_out_of_the_cited_text_is_grounded_in_it_however_it_is_written_there():
    # The grammar reads a JVM system property `-Dp4.ssl="true"` as the identifier `Dp4.ssl`, which
    # never stands alone in the text: quoting that text word for word must still pass the checks
    # (it failed, and the revision quoted another passage).
    text = 'Note: To use the Perforce plugin with an SSL certificate, set a system property called p4.ssl:\n\n-Dp4.ssl="true"'
    assert grounded(text, text) == []
    assert grounded("Set -Dp5.ssl to true.", text)  # a property the text does not have still fails
