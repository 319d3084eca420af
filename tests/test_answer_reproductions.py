"""Issue reproductions: each question below was answered wrongly before answerability, answer
selection by question kind and the scheme-learnt naming pattern; each now gets the right outcome.

The Cloud TPU sample is exported and indexed for real (tests/conftest.py); the hand-made cases use
the answer fixtures' export with one extra chunk, indexed for real too.
"""

from __future__ import annotations

import pytest
from fixtures.answer.export import build_export
from fixtures.answer.index import build_state, offline_embedder

from valid.answer.wiring import open_engine


@pytest.fixture(scope="module")
def sample(sample_build, tmp_path_factory):
    issues = tmp_path_factory.mktemp("issues")
    with open_engine(sample_build.state, embedder=offline_embedder(), issues_dir=issues, log=False) as engine:
        yield engine


def ask(engine, question):
    return engine.ask(question).answer


def only_answer(obj, generation):
    assert obj.outcome == "answer", (obj.outcome, obj.refusal)
    (answer,) = [a for a in obj.answers if a.generation == generation]
    return answer


def choices_asked(engine, question):
    """The generations VALID asks the reader to choose among (it must ask)."""
    obj = ask(engine, question)
    assert obj.outcome == "ask", (obj.outcome, obj.refusal)
    return [c.generation for c in obj.choices]


# 1. Answerability: the thing asked about does not exist in that generation ---------------------


def test_a_command_absent_from_the_generation_is_refused_by_name_with_a_gap_issue(sample):
    obj = ask(sample, "What is the stability level of the gcloud compute tpus tpu-vm partial-resize command on TPU v6e?")
    assert obj.outcome == "refuse"
    assert "partial-resize" in obj.refusal.reason and "partial-resize" in obj.refusal.missing
    assert obj.refusal.gap_issue
    assert obj.answers == []


def engine_with(tmp_path_factory, name, extra):
    """An engine over the answer fixtures' export with extra chunks, indexed for real."""
    work = tmp_path_factory.mktemp(name)
    state = build_state(work, export=build_export(extra=extra))
    return open_engine(state, embedder=offline_embedder(), issues_dir=work / "issues", log=False)


@pytest.fixture(scope="module")
def with_reservations(tmp_path_factory):
    extra = [(
        "tpu7x/reservations.dita#reservations/body", "Reservations", "body", ["tpu7x"],
        "A reservation holds TPU7x capacity for your project until you release it. Ask your account team for one.",
    )]
    with engine_with(tmp_path_factory, "reservations", extra) as engine:
        yield engine


def test_a_topic_only_another_generation_has_is_named_without_its_text(with_reservations):
    obj = ask(with_reservations, "How long does a reservation hold TPU v5p capacity?")
    assert obj.outcome == "refuse"
    assert "'reservation'" in obj.refusal.reason and "TPU7x" in obj.refusal.reason
    assert "account team" not in obj.refusal.reason  # the other generation's name, never its text


# 2. A value that lives in a chunk title ----------------------------------------------------------


@pytest.fixture(scope="module")
def with_signature(tmp_path_factory):
    extra = [(
        "widgets.dita#widget-new/body", "new Widget(name[, options])", "body", ["v6e"],
        "Creates a widget. The name must be unique within a project; options sets its labels.",
    )]
    with engine_with(tmp_path_factory, "signature", extra) as engine:
        yield engine


def test_a_signature_that_is_only_a_title_is_the_answer_and_a_cited_step(with_signature):
    answer = only_answer(ask(with_signature, "What arguments does new Widget take on v6e?"), "v6e")
    assert "new Widget(name[, options])" in answer.answer
    assert any(s.text == "new Widget(name[, options])" and s.cite == "widgets.dita#widget-new/body" for s in answer.steps)


# 3. Answer selection by question kind ----------------------------------------------------------


def test_memory_per_chip_answers_the_memory_row_not_the_chips_row(sample):
    answer = only_answer(ask(sample, "Tell me the v6e memory per chip"), "v6e")
    assert "32 GiB" in answer.answer
    assert "Chips per host" not in answer.answer


def test_a_zone_question_is_not_answered_with_a_line_of_a_code_block(sample):
    obj = ask(sample, "What zone should I use for v5p?")
    # The sample names no zone for v5p: the answerer abstains instead of quoting `--zone=${ZONE} \`.
    assert obj.outcome == "refuse"
    assert not any("${" in a.answer or a.answer.rstrip().endswith("\\") for a in obj.answers)


def test_the_no_software_version_note_answers_which_version_flag_on_ironwood(sample):
    answer = only_answer(ask(sample, "I'm on Ironwood. Which --version flag value do I use for the VM?"), "tpu7x")
    # The note ("there is no software version to pass") or the versions table's TPU7x row ("Not
    # supported by the Cloud TPU API"): either says there is no value, which is the answer.
    assert "no software version" in answer.answer or "Not supported" in answer.answer
    assert "You pass it with the --version flag" not in answer.answer


def test_a_count_question_after_context_answers_the_count_not_a_definition(sample):
    answer = only_answer(ask(sample, "I have a v6e-8 slice. How many chips per host?"), "v6e")
    assert "8" in answer.answer and "slice is" not in answer.answer


@pytest.fixture(scope="module")
def with_lead_in(tmp_path_factory):
    extra = [(
        "logs.dita#logs/locations", "Log files", "section", ["v5p"],
        "The TPU runtime writes its logs in the following locations:\n"
        "- /var/log/tpu/runtime.log\n- /tmp/tpu_logs/",
    )]
    with engine_with(tmp_path_factory, "lead-in", extra) as engine:
        yield engine


def test_a_lead_in_sentence_brings_the_list_it_introduces(with_lead_in):
    answer = only_answer(ask(with_lead_in, "Where does the TPU runtime write its log files on v5p?"), "v5p")
    cited = "\n".join(s.text for s in answer.steps)
    assert "/var/log/tpu/runtime.log" in cited and "/tmp/tpu_logs/" in cited
    assert "/var/log/tpu/runtime.log" in answer.answer  # the answer line is not the lead-in alone


# 5. Unknown generations from the scheme's naming pattern -----------------------------------------


def test_a_multiplier_next_to_a_product_word_is_not_an_unknown_generation(sample):
    obj = ask(sample, "Is a v5p TPU 2x faster than v6e?")
    assert "TPU 2x" not in (obj.refusal.reason if obj.refusal else "")
    assert obj.scope == ["v5p", "v6e"]


def test_known_generations_are_answered_and_the_unknown_one_refused_in_one_answer(sample):
    obj = ask(sample, "How many chips per VM on v5p and on TPU v4?")
    assert obj.outcome == "answer"
    assert [a.generation for a in obj.answers] == ["v5p"]
    assert "4" in obj.answers[0].answer
    assert "TPU v4" in obj.refusal.reason and obj.refusal.gap_issue


# 4. Scope resolution generic over the scheme: versioned products (the Corvane sample) ------------


@pytest.fixture(scope="module")
def corvane(corvane_build, tmp_path_factory):
    issues = tmp_path_factory.mktemp("corvane-issues")
    with open_engine(corvane_build.state, embedder=offline_embedder(), issues_dir=issues, log=False) as engine:
        yield engine


def test_a_reference_title_with_a_version_resolves_without_an_exact_label(corvane):
    obj = ask(corvane, "In the Corvane CLI reference version 2.4.1, what is the default of --parallel for corvane push?")
    assert obj.scope == ["cli-2.4.1"]
    assert "16" in only_answer(obj, "cli-2.4.1").answer


def test_a_partial_version_asks_among_the_matching_releases_only(corvane):
    obj = ask(corvane, "What is the default of --parallel for corvane push in Corvane CLI 2?")
    assert obj.outcome == "ask"
    offered = {c.generation for c in obj.choices}
    assert offered and offered <= {"cli-2.0.0", "cli-2.3.0", "cli-2.4.1"}


def test_asking_offers_only_the_named_product(corvane):
    obj = ask(corvane, "Which command reloads the configuration of Corvane Agent?")
    assert obj.outcome in ("ask", "refuse")
    assert all(c.generation.startswith("agent-") for c in obj.choices)


def test_the_sample_writes_its_product_words_as_the_products_names(corvane):
    # Outside its labels the Corvane sample writes "agent" and "CLI" in content their own releases
    # keep (valid.answer.scope.NameWordUse): said alone, lower case, they still name the product.
    agent = corvane.resolve_scope("How do I restart the agent after an upgrade?", None, {})
    assert agent.candidates == ["agent-1.4.0", "agent-2.0.0", "agent-2.1.0"]
    cli = corvane.resolve_scope("Which cli command uploads a folder?", None, {})
    assert cli.candidates == ["cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]
    assert all(scope for _, scope in corvane.release.chunks_writing("agent"))


def test_a_version_no_release_has_is_refused_as_unknown(corvane):
    obj = ask(corvane, "What is the default of --parallel in Corvane CLI 3.0?")
    assert obj.outcome == "refuse" and "3.0" in obj.refusal.reason


# Found by questions written afresh from the sample content (the trap sets' `fresh-` dev entries) --


def test_a_spelled_out_term_finds_the_row_that_writes_its_abbreviation(sample):
    # The doc set defines "high-bandwidth memory (HBM)" once; v6e's own table only says "HBM".
    obj = ask(sample, "How much high-bandwidth memory does a v6e chip have?")
    assert "32 GiB" in only_answer(obj, "v6e").answer


def test_a_command_named_in_plain_words_narrows_the_choices_to_releases_that_have_it(corvane):
    obj = ask(corvane, "Which checksum does corvane push store with each chunk by default?")
    assert obj.outcome == "ask"
    assert {c.generation for c in obj.choices} == {"cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"}


def test_a_version_two_products_share_is_answered_for_the_one_whose_content_answers(corvane):
    obj = ask(corvane, "What's the default chunk size for corvane push in 2.0.0?")
    assert obj.outcome == "answer" and obj.scope == ["cli-2.0.0"]
    assert "4 MiB" in only_answer(obj, "cli-2.0.0").answer


def test_a_range_of_another_products_releases_answers_which_releases(corvane):
    obj = ask(corvane, "Which CLI releases does Corvane Agent 2.0.0 work with?")
    assert "2.0.0 and later" in only_answer(obj, "agent-2.0.0").answer


def test_a_dotted_version_in_a_sentence_is_a_value_and_profiled_text_outranks_a_generic_step(corvane):
    obj = ask(corvane, "On Ashgrove, which glibc version do I need on a Linux box?")
    assert "2.17" in only_answer(obj, "cli-1.0.0").answer


def test_a_where_question_answers_with_the_path(corvane):
    obj = ask(corvane, "Where does Corvane CLI 1.1.0 keep its config file?")
    assert "~/.corvane.toml" in only_answer(obj, "cli-1.1.0").answer


def test_a_question_asking_for_the_command_gets_the_whole_command_block(sample):
    obj = ask(sample, "Give me the full gcloud command to create a single-host TPU v5p VM.")
    answer = only_answer(obj, "v5p").answer
    assert answer.startswith("gcloud compute tpus tpu-vm create")
    assert "--accelerator-type=v5p-8" in answer and "--version=v2-alpha-tpuv5" in answer


def test_what_kind_of_asks_for_a_value_not_names(sample):
    obj = ask(sample, "What kind of torus are the chips of a TPU v6e Pod wired in?")
    assert "2D torus" in only_answer(obj, "v6e").answer


def test_how_many_counts_the_plural_noun_not_the_verb_after_it(sample):
    obj = ask(sample, "How many chips make up a Pod on Trillium, and on v5p?")
    assert "256" in only_answer(obj, "v6e").answer
    assert "8,960" in only_answer(obj, "v5p").answer


def test_a_sentence_naming_the_command_answers_how_do_i(corvane):
    obj = ask(corvane, "How do I sign the CLI out of my account in 2.4.1?")
    assert "corvane auth logout" in only_answer(obj, "cli-2.4.1").answer


def test_the_readers_situation_before_the_question_is_not_required_in_the_docs(corvane):
    obj = ask(corvane, "I'm running Corvane 2.4.1 on an old CentOS server. What's the minimum glibc?")
    assert "2.28" in only_answer(obj, "cli-2.4.1").answer


def test_another_products_version_written_in_the_asked_releases_own_content_passes_the_checks(corvane):
    # 1.0.0 and 1.1.0 are CLI releases' own versions; the agent's compatibility row states them.
    obj = ask(corvane, "Which CLI releases' vaults does Corvane Agent 1.4.0 work with?")
    assert "1.0.0 and 1.1.0" in only_answer(obj, "agent-1.4.0").answer


def test_what_happens_is_not_a_question_asking_for_names(corvane):
    obj = ask(corvane, "What happens in corvane-agent 2.1.0 if there's only the old YAML config file on the machine?")
    answer = only_answer(obj, "agent-2.1.0")
    assert "refuses to start" in " ".join([answer.answer, *(s.text for s in answer.steps)])


def test_a_prose_compound_far_from_any_code_word_is_not_an_anchor(corvane):
    obj = ask(corvane, "How can I get Corvane Agent v1.4.0 to re-read its configuration without stopping jobs that are running?")
    assert obj.outcome == "answer"


def test_the_sections_title_says_what_a_bare_statement_answers(corvane):
    obj = ask(corvane, "How long before I have to sign in again?")
    assert obj.outcome == "ask"
    assert {c.generation for c in obj.choices} == {"cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"}


def test_a_compound_of_the_question_said_as_one_phrase_picks_sign_in_over_sign_out(corvane):
    obj = ask(corvane, "Which sign-in command does Corvane CLI 1.1.0 use?")
    assert only_answer(obj, "cli-1.1.0").answer == "corvane login"


def test_a_measured_quantity_needs_its_own_unit_not_a_compound_that_names_it(sample):
    # TPU7x content states "192 GiB of high-bandwidth memory" and no interconnect bandwidth: the
    # "bandwidth" inside "high-bandwidth" next to a GiB figure is not a bandwidth.
    obj = ask(sample, "What is the ICI bandwidth of one TPU7x chip?")
    assert obj.outcome == "refuse" and obj.answers == []
    memory = only_answer(ask(sample, "How much HBM does one TPU7x chip have?"), "tpu7x")
    assert "192 GiB" in memory.answer


def test_a_command_the_release_notes_say_was_removed_is_refused_with_that_line(corvane):
    # In 2.0.0 the CLI's content names `corvane mirror` only in its release notes ("Removed: …"):
    # answering from the lines around that notice (its replacement) would answer another question.
    obj = ask(corvane, "Which options does corvane mirror take in Corvane CLI 2.0.0?")
    assert obj.outcome == "refuse" and obj.answers == []
    assert "corvane mirror" in obj.refusal.reason and "Removed:" in obj.refusal.reason
    assert obj.refusal.gap_issue is None  # the docs are explicit: nothing for a writer to fill
    # Where a topic about the command is in scope, it is answered as before.
    assert only_answer(ask(corvane, "Which options does corvane mirror take in Corvane CLI 1.1.0?"), "cli-1.1.0")


def test_a_second_question_joined_with_and_gets_its_own_evidence(corvane):
    # "…and what format is it in?" refers back to the file of the first question; the steps must
    # carry the format sentence as well as the path.
    answer = only_answer(ask(corvane, "Where does Corvane Agent 2.1.0 keep its configuration file, and what format is it in?"), "agent-2.1.0")
    said = " ".join([answer.answer, *(s.text for s in answer.steps)])
    assert "/etc/corvane/agent.toml" in said and "written in TOML" in said


def test_a_release_another_clearly_out_matches_is_not_offered(corvane):
    # Only 2.3.0 and later have `corvane prune`; the older releases match the question's generic
    # words (vault, old, snapshots) and nothing of it (a dev trap-set question).
    assert choices_asked(corvane, "My vault keeps growing. How do I get rid of old snapshots with the Corvane CLI?") == ["cli-2.3.0", "cli-2.4.1"]


def test_a_name_the_question_asks_about_that_no_in_scope_content_has_is_refused_by_name(sample):
    obj = ask(sample, "Which Ubuntu release do TPU v6e VMs run?")
    assert obj.outcome == "refuse" and "Ubuntu" in obj.refusal.reason
    # A name the content has (PyTorch) is answered as before.
    assert "PyTorch" in only_answer(ask(sample, "Which frameworks can I use with PyTorch on TPU v6e?"), "v6e").answer


def test_still_in_a_context_sentence_does_not_make_a_question_about_availability(corvane):
    # "…still have only the old YAML file. Does the agent start?" asks what happens, not whether
    # something is still available: answered from the release's content, not as an availability check.
    obj = ask(corvane, "Our servers run Corvane Agent 2.0.0 and still have only the old YAML file. Does the agent start?")
    assert "still reads it" in only_answer(obj, "agent-2.0.0").answer


def test_what_kinds_of_is_answered_by_the_list_the_noun_comes_with(sample):
    # "the TPU v6e generation" is the generation's name, not a word to look for; the kinds of models
    # are a list in prose, not a code value.
    answer = only_answer(ask(sample, "Which kinds of models is the TPU v6e generation designed for?"), "v6e")
    assert "transformer, text-to-image and CNN models" in answer.answer


# Mechanisms found on the blind dev questions of this round ------------------------------------


def test_a_command_line_of_the_doc_sets_own_make_that_it_does_not_document_is_refused_by_name(sample):
    # `gcloud compute tpus tpu-vm` is the doc set's own command prefix; `list` under it is documented
    # for no generation, so the question is about something the v5p content does not have.
    obj = ask(sample, "How do I list my v5p VMs with gcloud compute tpus tpu-vm list?")
    assert obj.outcome == "refuse" and obj.answers == []
    assert "gcloud compute tpus tpu-vm list" in obj.refusal.reason


def test_an_abbreviation_only_another_generations_content_writes_is_refused_by_name(sample):
    # The TPU7x content says its VM is split between NUMA nodes; v6e's never writes NUMA.
    obj = ask(sample, "On Trillium, how many NUMA nodes does a VM have?")
    assert obj.outcome == "refuse" and obj.answers == []
    assert "'NUMA'" in obj.refusal.reason and "TPU7x" in obj.refusal.reason
    assert "two NUMA" not in obj.model_dump_json()  # the other generation's text is never shown


def test_two_abbreviations_offered_as_alternatives_need_only_one_in_scope(corvane):
    # "YAML or TOML" asks which one: a release with either answers it.
    obj = ask(corvane, "Is the Corvane Agent 2.1.0 configuration file YAML or TOML?")
    assert "TOML" in only_answer(obj, "agent-2.1.0").answer


def test_a_number_word_before_the_counted_noun_answers_how_many(sample):
    answer = only_answer(ask(sample, "How many NUMA nodes does an Ironwood VM have?"), "tpu7x")
    assert "two NUMA nodes" in answer.answer


def test_the_shared_summary_of_a_topic_whose_sections_differ_by_release_is_not_the_answer(corvane):
    # "Sign-in commands" is shared by every CLI release, but its sections (`corvane login`,
    # `corvane auth login`) are not: its summary line says nothing the reader can act on.
    assert choices_asked(corvane, "Corvane CLI: sign in how?") == ["cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]


def test_a_partial_version_of_one_product_asks_when_one_release_answers_and_another_removed_it(corvane):
    # "agent 2" is 2.0.0 and 2.1.0; 2.0.0 still reads the YAML file, 2.1.0's notes say it was
    # removed. Answering for 2.0.0 alone would answer for a release the reader may not have.
    obj = ask(corvane, "Does agent 2 still read agent.yaml?")
    assert obj.outcome == "ask" and obj.answers == []
    assert [c.generation for c in obj.choices] == ["agent-2.0.0", "agent-2.1.0"]


def test_an_environment_variable_is_found_only_as_written_not_as_its_words(corvane):
    # CORVANE_VAULT arrives in CLI 2.3.0; the 2.0.0 content says "Corvane" and "vault" everywhere.
    obj = ask(corvane, "In Corvane CLI 2.0.0, can I set the default vault with the CORVANE_VAULT environment variable?")
    assert obj.outcome == "refuse" and "CORVANE_VAULT" in obj.refusal.reason
    assert only_answer(ask(corvane, "What does the CORVANE_VAULT variable set in Corvane CLI 2.3.0?"), "cli-2.3.0")


def test_a_value_question_naming_a_flag_answers_with_the_line_that_sets_it(sample):
    answer = only_answer(ask(sample, "What --accelerator-type do I give gcloud for a single-host Trillum VM?"), "v6e")
    assert answer.answer == "--accelerator-type=v6e-8"


def test_a_wildcard_version_asks_among_the_releases_under_it(corvane):
    assert choices_asked(corvane, "Will the 2.x agent still read my old YAML configuration file?") == ["agent-2.0.0", "agent-2.1.0"]
    obj = ask(corvane, "In CLI 1.x, how do I sign in?")
    assert [c.generation for c in obj.choices] == ["cli-1.0.0", "cli-1.1.0"]


def test_a_program_named_after_its_product_narrows_the_choices_to_that_product(corvane):
    assert choices_asked(corvane, "How do I make corvane-agent re-read its configuration without a restart?") == ["agent-1.4.0", "agent-2.0.0", "agent-2.1.0"]


def test_a_clipped_word_matches_its_full_form(corvane):
    # "config" is "configuration" clipped; the section says "The configuration file is …".
    answer = only_answer(ask(corvane, "Where does Corvane Agent 2.1.0 keep its config?"), "agent-2.1.0")
    assert "/etc/corvane/agent.toml" in answer.answer


def test_another_products_section_titles_do_not_make_a_word_missing(corvane):
    # Only the CLI has a section titled "Location"; that says nothing of what the agent lacks.
    # A noun-phrase question naming the file's location wants a file path, not "/metrics".
    answer = only_answer(ask(corvane, "Corvane Agent 2.1.0 settings file location?"), "agent-2.1.0")
    assert "/etc/corvane/agent.toml" in answer.answer
    assert "~/.config/corvane/config.toml" in only_answer(ask(corvane, "Corvane CLI 2.4.1 config file path?"), "cli-2.4.1").answer


def test_a_default_asked_for_without_the_word_answers_the_default_not_the_limit(corvane):
    # 1.4.0 runs 2 jobs at a time by default, up to 8 (its notes: "up to 8 jobs can run at the same time").
    answer = only_answer(ask(corvane, "With agent 1.4.0, how many jobs can run concurrently unless I raise the limit?"), "agent-1.4.0")
    assert answer.answer.startswith("max_jobs | 2")


def test_a_procedure_answer_starts_at_its_first_step(corvane):
    # The task's title matches the question; its last step ("Answer y to delete them") is the
    # shortest and used to be the answer line.
    answer = only_answer(ask(corvane, "How do I keep a vault in step with a directory in Corvane CLI 2.4.1?"), "cli-2.4.1")
    assert "corvane sync" in answer.answer and "--delete" in answer.answer
    assert "Answer y" in " ".join(s.text for s in answer.steps)  # the later step still follows


def test_the_default_of_a_flag_comes_from_the_row_that_defines_it_not_an_example(corvane):
    # The options table was not among the retrieved chunks; the example "--parallel 12" was.
    answer = only_answer(ask(corvane, "default --parallel for Corvane 2.3.0 pushes?"), "cli-2.3.0")
    assert answer.answer.startswith("--parallel N | 8")


def test_an_example_the_question_gives_need_not_be_in_the_docs(corvane):
    obj = ask(corvane, "Cinderford: how do I skip node_modules and such when pushing, using a list of patterns in a file?")
    assert "--exclude-from" in only_answer(obj, "cli-2.3.0").answer


def test_which_file_is_answered_with_the_files_path(corvane):
    answer = only_answer(ask(corvane, "Which configuration file does Corvane CLI 2.3.0 read?"), "cli-2.3.0")
    assert "~/.config/corvane/config.toml" in answer.answer


def test_a_default_asked_in_several_words_is_searched_as_a_default(corvane):
    # "unless I change it" is said as "by default": its words no longer dilute the question's.
    answer = only_answer(ask(corvane, "corvane-agent 2.0.0: how many backup jobs run at once unless I change it?"), "agent-2.0.0")
    assert "4" in answer.answer


def test_whether_a_release_states_an_answer_is_judged_on_what_the_answerer_would_read(corvane):
    # The shared search brought 2.4.1's limits table below its top chunks; answering would have
    # read it, so offering reads it too.
    assert choices_asked(corvane, "Corvane CLI 2: what is the largest file a push accepts?") == ["cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]


def test_terms_offered_as_alternatives_need_only_one_in_a_generations_content(sample):
    # v5p and v6e write --accelerator-type, TPU7x --machine-type: each has what is asked about.
    assert choices_asked(sample, "do I specify --accelerator-type or --machine-type when I create it?") == ["v5p", "v6e", "tpu7x"]
    assert only_answer(ask(sample, "On v5p, do I pass --accelerator-type or --machine-type to create a VM?"), "v5p")
    # A list at the end of the question offers alternatives too.
    obj = ask(sample, "what's inside each chip besides the TensorCores - MXUs, SparseCores?")
    assert obj.outcome == "ask" and len(obj.choices) == 3


def test_a_default_asked_as_unless_told_otherwise_asks_among_the_cli_releases(corvane):
    # "unless told otherwise" asks for the default, and "algo" is "algorithm" clipped.
    assert choices_asked(corvane, "what checksum algo does the corvane cli store with each chunk unless told otherwise?") == ["cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]


def test_a_release_whose_shared_topic_differs_below_it_is_offered(corvane):
    # "Agent configuration" is shared; its "Configuration file" section (YAML in 1.4.0, TOML
    # later) is each release's own, so every release has its own answer.
    assert choices_asked(corvane, "syntax for a job entry (directory, vault, schedule) in the agent config file?") == ["agent-1.4.0", "agent-2.0.0", "agent-2.1.0"]


def test_a_product_whose_content_covers_two_fewer_of_seven_words_is_dominated(corvane):
    # The agents' content says nothing of checksums; the CLI releases' options tables do.
    obj = ask(corvane, "Which checksum algo gets stored with chunks unless I change it?")
    assert [c.generation for c in obj.choices] == ["cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]


def test_a_release_reached_only_by_meaning_is_not_offered_beside_one_far_nearer(corvane):
    # The agents share a word or two with the question and nothing on verify; the CLI releases
    # have the verify reference, 0.2 or more nearer in meaning.
    assert choices_asked(corvane, "verify on our big vault runs for ages. is there a way to only check a part of chunks?") == ["cli-1.0.0", "cli-1.1.0", "cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]


def test_a_release_whose_own_answer_sits_below_shared_chunks_is_offered_beside_its_peers(corvane):
    # 2.0.0's and 2.4.1's best chunks are the shared troubleshooting topics; their own limits
    # tables, which the answerer would quote, come below them. 2.3.0 (a peer) has its own above.
    assert choices_asked(corvane, "Corvane CLI 2: is there a cap on how many files a single push can contain?") == ["cli-2.0.0", "cli-2.3.0", "cli-2.4.1"]


def test_a_flag_named_before_an_e_g_example_is_still_what_the_question_is_about(corvane):
    # --keep-within arrives in 2.4.1; "e.g. 30d?" used to be read as the whole question.
    obj = ask(corvane, "cinderford - what does --keep-within do on corvane prune, e.g. 30d?")
    assert obj.outcome == "refuse" and "--keep-within" in obj.refusal.reason


def test_a_default_asked_in_other_words_is_answered_from_its_own_row(corvane):
    # "if I don't specify one" asks for the default, one value: the compression row, not the
    # checksum row beside it that happens to hold a number.
    answer = only_answer(ask(corvane, "On Birchmoor, what compression does push use if I don't specify one?"), "cli-1.1.0")
    assert "gzip" in answer.answer and "md5" not in answer.answer


def test_will_it_keep_working_is_answered_with_the_deprecation_notice(corvane):
    # The thing is named in the sentence before the question; the lines around it share "script".
    answer = only_answer(ask(corvane, "I'm on Corvane 1.1.0 and my scripts call corvane mirror. Is that going to keep working?"), "cli-1.1.0")
    # A deprecation notice of corvane mirror (the step's or the caution's), with no Yes/No whose sense the wording decides.
    assert "Deprecated" in answer.answer and "corvane mirror" in answer.answer
    assert not answer.answer.startswith(("Yes", "No"))
    answer = only_answer(ask(corvane, "Is corvane login deprecated in Corvane CLI 2.0.0?"), "cli-2.0.0")
    assert answer.answer.startswith("Yes. Deprecated: corvane login")


def test_a_sentence_telling_which_variable_to_set_is_a_step(corvane):
    # CORVANE_VAULT is not marked as code in that sentence; an options row of corvane pull used to win.
    obj = ask(corvane, "With Corvane CLI 2.3.0, how do I set a default vault so I don't have to type the address each time?")
    assert "CORVANE_VAULT" in only_answer(obj, "cli-2.3.0").answer
