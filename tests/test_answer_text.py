"""Words of questions and chunks: one stem for the forms of one word."""

import pytest

from valid.answer.text import stem, terms


@pytest.mark.parametrize(
    "forms",
    [
        ("store", "stores", "stored", "storing"),
        ("zone", "zones"),
        ("type", "types"),
        ("machine", "machines"),
        ("tensorcore", "tensorcores"),
        ("chip", "chips"),
    ],
)
def test_the_forms_of_one_word_share_one_stem(forms):
    assert len({stem(f) for f in forms}) == 1, {f: stem(f) for f in forms}


def test_different_words_keep_different_stems():
    assert stem("free") != stem("fr") and stem("zone") != stem("zoo")
    assert stem("class") == "class"  # a double s is not a plural


def test_a_question_word_finds_the_texts_other_form():
    assert terms("Which checksum is stored with each chunk?") & terms("the checksum each chunk stores")  >= {stem("store")}


def test_a_question_joined_with_and_what_is_two_asks_and_a_pronoun_carries_the_first():
    from valid.answer.question import asks

    first, second = asks("Where is the agent's configuration file, and what format is it in?")
    assert first == "Where is the agent's configuration file"
    assert second.startswith("what format is it in?") and "configuration file" in second and "Where" not in second
    assert asks("Which zones and regions?") == ["Which zones and regions?"]
    assert asks("I have a v6e-8 slice. How many chips per host?") == ["I have a v6e-8 slice. How many chips per host?"]


def test_a_value_is_dominated_only_when_another_covers_more_and_is_nearer_in_meaning():
    from types import SimpleNamespace as R

    from valid.answer.choices import undominated

    out = {"old": R(coverage=0.33, best_similarity=0.66, relevant=True), "new": R(coverage=0.67, best_similarity=0.78, relevant=True)}
    assert undominated(["old", "new"], out) == ["new"]
    # Covering more but not nearer in meaning (or the reverse) dominates nothing.
    out["old"] = R(coverage=0.33, best_similarity=0.75, relevant=True)
    assert undominated(["old", "new"], out) == ["old", "new"]
    # Offered only as near (it misses both floors) beside one covering far more: dominated.
    out["old"] = R(coverage=0.33, best_similarity=0.75, relevant=False)
    assert undominated(["old", "new"], out) == ["new"]
    out["old"] = R(coverage=0.8, best_similarity=0.5, relevant=True)
    assert undominated(["old", "new"], out) == ["old", "new"]


def test_a_narrowing_that_leaves_out_a_value_clearly_nearer_in_meaning_than_every_kept_one_is_seen():
    from types import SimpleNamespace as R

    from valid.answer.choices import nearer_left_out

    out = {"topic": R(best_similarity=0.75), "a": R(best_similarity=0.49), "b": R(best_similarity=0.52)}
    assert nearer_left_out(["topic", "a", "b"], ["a", "b"], out)  # 0.23 above the best kept
    assert not nearer_left_out(["topic", "a", "b"], ["topic", "a"], out)  # it is kept
    out["topic"] = R(best_similarity=0.6)
    assert not nearer_left_out(["topic", "a", "b"], ["a", "b"], out)  # 0.08: within the gap
    out["topic"] = R(best_similarity=None)
    assert not nearer_left_out(["topic", "a", "b"], ["a", "b"], out)


def test_proper_names_are_the_capitalised_words_inside_the_question_proper():
    from valid.answer.question import proper_names

    assert proper_names("We run JAX on Ironwood. Which Python versions are supported on TPU7x?", ["Ironwood", "TPU7x"]) == ["Python"]
    assert proper_names("Which Python versions?") == ["Python"]
    assert proper_names("How do I create a VM?") == []  # a sentence's first word is not a name


def test_the_measured_quantity_is_the_last_quantity_noun_of_the_phrase():
    from valid.answer.question import counted

    assert counted("What is the HBM memory bandwidth per chip?") == "bandwidth"
    assert counted("What is the memory per chip?") == "memory"


def test_the_noun_a_kind_of_question_sorts():
    from valid.answer.question import kind_of_noun

    assert kind_of_noun("What kinds of models is it built for?") == "models"
    assert kind_of_noun("Which type of disk?") == "disk"
    assert kind_of_noun("How many chips?") is None


def test_at_all_and_before_are_not_words_an_answer_must_share():
    # "What do I need before I can get capacity at all?": a sentence with "all" and "before" in it
    # is not nearer the answer for them.
    assert terms("at all before") == set()


def test_clipped_words_bring_their_full_form():
    assert {"config", "configuration"} <= terms("the config file")
    assert {"max", "maximum", "job"} <= terms("max_jobs")


def test_text_the_builds_share_is_read_below_the_retrievals_top_as_deep_as_one_builds_answer():
    from types import SimpleNamespace as C

    from valid.answer.choices import SHARED_TOP, shared_chunks

    def chunk(i, scope=("a", "b")):
        return C(id=f"t{i}", scope=list(scope), model_copy=lambda update, i=i, scope=scope: C(id=f"t{i}", scope=list(scope), **update))

    top = {"a": C(chunks=[chunk(n) for n in range(SHARED_TOP)] + [chunk(9, ["a"])]), "b": C(chunks=[chunk(0)])}
    assert [c.id for c in shared_chunks(top, ["a", "b"])] == [f"t{n}" for n in range(SHARED_TOP)]
    # Below the top: the shared chunks of each build's own deeper ranking (a build's own one is not
    # shared text), best rank first, each once, up to the depth.
    below = {"a": [chunk(5), chunk(8, ["a"]), chunk(6)], "b": [chunk(7), chunk(5)]}
    read = shared_chunks(top, ["a", "b"], SHARED_TOP + 2, below)
    assert [c.id for c in read] == [f"t{n}" for n in range(SHARED_TOP)] + ["t5", "t7"]
    assert [c.alias for c in read] == [f"c{n}" for n in range(1, SHARED_TOP + 3)]
