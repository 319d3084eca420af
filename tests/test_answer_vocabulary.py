"""The doc set's own vocabulary: abbreviations it defines and command names its writers mark as code."""

from valid.answer.abbreviations import defined_in
from valid.answer.question import acronyms, anchor_in, anchors, asking_span
from valid.answer.text import terms
from valid.answer.vocabulary import command_names


def test_a_long_form_with_its_abbreviation_in_brackets_is_a_definition():
    table = defined_in(["Each chip has 192 GiB of high-bandwidth memory (HBM)."])
    assert table.long_forms == {"hbm": ("high-bandwidth memory",)}


def test_the_abbreviation_first_and_a_plural_abbreviation_define_too():
    table = defined_in(["Run it on GKE (Google Kubernetes Engine).", "Tensor Processing Units (TPUs) are fast."])
    assert table.long_forms == {"gke": ("google kubernetes engine",), "tpu": ("tensor processing units",)}


def test_brackets_whose_letters_are_not_the_initials_define_nothing():
    assert not defined_in(["Use the default (see below).", "A host has eight chips (8 CPUs).", "Pick a zone (ZONE)."])


def test_a_question_that_spells_out_the_long_form_also_searches_the_abbreviation():
    table = defined_in(["Each chip has high-bandwidth memory (HBM)."])
    assert table.expand("How much high-bandwidth memory does v6e have?").endswith(" HBM")
    assert table.expand("How much HBM does v6e have?") == "How much HBM does v6e have?"


def test_content_with_either_form_covers_the_words_of_the_other():
    table = defined_in(["Each chip has high-bandwidth memory (HBM)."])
    assert {"high", "bandwidth", "memory"} <= table.close_over(terms("HBM capacity per chip | 32 GiB"))
    assert "hbm" in table.close_over(terms("32 GiB of high-bandwidth memory"))
    assert "hbm" not in table.close_over(terms("32 GiB of memory"))


def test_command_names_are_the_leading_words_of_code_phrases_up_to_the_first_argument():
    names = command_names(
        [
            "corvane push [OPTIONS] DIRECTORY VAULT",
            "gcloud compute tpus tpu-vm create ${TPU_NAME} \\\n  --zone=${ZONE}",
            "corvane-agent reload",
            "debug",
            "export ZONE=us-east5-a",
        ]
    )
    assert names == {"corvane push", "gcloud compute tpus tpu-vm create", "corvane-agent reload"}


def test_a_line_of_prose_or_sample_text_in_a_code_block_names_no_command():
    # Code blocks hold sample documents and comments as well as commands: a line with a function
    # word is no command, and a question's plain words are then no anchor.
    block = "code merged from repository\na different value is\ndocker compose down\nappear in the"
    assert command_names([block]) == {"docker compose down"}
    question = "Can an svn:externals file definition point to a file in a different repository?"
    assert anchors(question, commands=command_names([block])) == []


def test_a_release_indexed_before_reads_its_stored_command_names_with_the_same_rule():
    from valid.index.derived import Derived, StoredVocabulary

    stored = StoredVocabulary(abbreviations={}, commands=["a different value is", "docker compose down"])
    derived = Derived(title="t", vocabulary=stored, owned={}, owned_why=None)
    assert derived.to_vocabulary().commands == {"docker compose down"}


def test_a_command_name_written_in_plain_words_is_an_anchor():
    found = anchors("Which checksum does corvane push store by default?", commands={"corvane push", "corvane pull"})
    assert [(a.text, a.kind) for a in found] == [("corvane push", "code")]


def test_anchors_come_from_the_question_not_the_sentence_setting_the_readers_situation():
    question = "I'm on an old CentOS server with `glibc`. What is the minimum version for --parallel?"
    assert question[slice(*asking_span(question))].startswith("What is")
    assert [a.text for a in anchors(question)] == ["--parallel"]
    assert [a.text for a in anchors("Is --parallel still 8 in v2.4.1?", ["v2.4.1"])] == ["--parallel"]


def test_a_command_line_continuing_a_known_command_prefix_is_an_anchor():
    commands = {"gcloud compute tpus tpu-vm create", "gcloud compute tpus tpu-vm ssh", "corvane push"}
    found = anchors("Which flags does gcloud compute tpus tpu-vm attach-disk take?", commands=commands)
    assert [a.text for a in found] == ["gcloud compute tpus tpu-vm attach-disk"]
    # The run stops at a word of no command ("take"); a known command stays one anchor.
    assert [a.text for a in anchors("Run gcloud compute tpus tpu-vm ssh now", commands=commands)] == [
        "gcloud compute tpus tpu-vm ssh"
    ]


def test_a_program_name_followed_by_ordinary_words_is_no_command():
    commands = {"gcloud compute tpus tpu-vm create", "corvane push"}
    assert anchors("Can corvane handle symlinks?", commands=commands) == []
    assert anchors("How do I use gcloud compute tpus to see versions?", commands=commands) == []


def test_abbreviations_in_capitals_are_read_except_alternatives_and_names():
    assert acronyms("How are the chips of a TPU v5p VM split between NUMA nodes?", ignore=["TPU v5p"]) == ["vm", "numa"]
    assert acronyms("Is the agent configuration file YAML or TOML?") == []
    assert acronyms("I use GKE. Which zone?") == []  # the reader's situation, not the question


def test_a_name_in_constant_case_is_found_only_as_written():
    (anchor,) = anchors("Which value does MAX_RETRY_COUNT take?")
    assert not anchor_in(anchor, "The max retry count is 3.")
    assert anchor_in(anchor, "Set MAX_RETRY_COUNT to 3.")
    # A code-form name of ordinary words keeps its word match: `partial-resize` is "partial resize".
    (compound,) = anchors("What does the partial-resize command do?")
    assert anchor_in(compound, "A partial resize keeps the slice running.")


def test_a_prose_compound_after_a_one_word_program_name_is_no_command():
    commands = {"corvane-agent reload", "corvane-agent status"}
    assert anchors("How do I make corvane-agent re-read its configuration?", commands=commands) == []


def test_a_default_is_asked_for_in_several_words():
    from valid.answer.question import asks_default

    assert asks_default("How many run unless I change it?") and asks_default("What is set out of the box?")
    assert asks_default("Which level applies if I don't change anything?")
    assert asks_default("Which algorithm is used unless told otherwise?")
    assert asks_default("What compression does push use if I don't specify one?")
    assert not asks_default("How do I change the level?")


def test_terms_joined_by_or_or_a_slash_or_listed_at_the_end_are_alternatives():
    from valid.answer.question import alternatives

    assert alternatives("Do I pass --accelerator-type or --machine-type?") == [frozenset({"--accelerator-type", "--machine-type"})]
    assert alternatives("Is the file YAML/TOML?") == [frozenset({"yaml", "toml"})]
    assert alternatives("What is inside a chip - MXUs, SparseCores?") == [frozenset({"mxus", "sparsecores"})]
    assert alternatives("Which of gzip, zstd, or lz4 is the default?") == [frozenset({"gzip", "zstd", "lz4"})]
    # A comma that ends a phrase, or a list of the fields asked about, lists no alternatives.
    assert alternatives("On v5p, how many chips are there?") == []
    assert alternatives("What is the syntax of a job (directory, vault, schedule) in the file?") == []


def test_an_example_in_the_question_is_no_anchor():
    assert anchors("How do I skip node_modules and such when pushing?") == []
    assert anchors("Can I leave out paths such as build/out?") == []
    assert [a.text for a in anchors("What does node_modules hold?")] == ["node_modules"]


def test_an_abbreviation_such_as_e_g_ends_no_sentence_and_is_no_anchor():
    question = "cinderford - what does --keep-within do on corvane prune, e.g. 30d?"
    assert asking_span(question) == (0, len(question))
    assert [a.text for a in anchors(question)] == ["--keep-within"]
    assert anchors("Which file do I edit, i.e. where is it?") == []


def test_a_default_asked_in_other_words_is_a_value_question():
    from valid.answer.question import question_kind, with_default_said

    question = "what compression does push use if I don't specify one?"
    assert question_kind(with_default_said(question)) == "value"
    assert question_kind("Which frameworks are supported?") == "names"  # a plural still asks for names


def test_questions_about_whether_a_thing_lives_on_are_recognised():
    from valid.answer.question import asks_lifecycle

    for question in ("Is that going to keep working?", "is it going away?", "Is mirror still supported?",
                     "did they kill it off?", "Is the flag deprecated?"):
        assert asks_lifecycle(question), question
    assert not asks_lifecycle("How do I keep a vault in step with a directory?")
