"""Scoring a comparison: every expected difference present, none invented, no value on the wrong side."""

from valid.evaluate.score import score_cell
from valid.evaluate.trapset import TrapQuestion

SCOPES = {"v5p#v": {"v5p"}, "v6e#v": {"v6e"}, "both#s": {"v5p", "v6e"}}
TEXTS = {"v5p#v": "TPU v5p | v2-alpha-tpuv5", "v6e#v": "TPU v6e | v2-alpha-tpuv6e", "both#s": "Create a VM."}


def question(**expect):
    return TrapQuestion.model_validate(
        {"id": "q", "question": "What changed from v5p to v6e?", "stratum": "comparison", "split": "test",
         "expect": {"outcome": "compare", "scope": ["v5p", "v6e"], **expect}}  # fmt: skip
    )


def obj(rows):
    return {"outcome": "compare", "answers": [], "comparison": {"generations": ["v5p", "v6e"], "summary": "", "rows": rows}}


def differs(v5p_text="TPU v5p | v2-alpha-tpuv5", v6e_text="TPU v6e | v2-alpha-tpuv6e", v5p_cite="v5p#v", v6e_cite="v6e#v"):
    return {"kind": "differs", "topic": "versions", "cells": [
        {"generation": "v5p", "text": v5p_text, "cite": v5p_cite, "values": [], "present": True, "available": None},
        {"generation": "v6e", "text": v6e_text, "cite": v6e_cite, "values": [], "present": True, "available": None}]}  # fmt: skip


def shared():
    return {"kind": "shared", "topic": "create", "cells": [
        {"generation": g, "text": "Same for both: Create a VM", "cite": "both#s", "values": [], "present": True, "available": None}
        for g in ("v5p", "v6e")]}  # fmt: skip


def score(q, o):
    from valid.evaluate.score import grounded

    return score_cell(q, "valid", o, SCOPES, TEXTS, grounded)


EXPECT = dict(differences={"v5p": ["v2-alpha-tpuv5"], "v6e": ["v2-alpha-tpuv6e"]}, wrong_side={"v5p": ["v2-alpha-tpuv6e"], "v6e": ["v2-alpha-tpuv5"]})


def test_every_expected_difference_on_its_side_is_right():
    cell = score(question(**EXPECT), obj([differs(), shared()]))
    assert cell.category == "right" and cell.citations == cell.citations_in_scope == 4


def test_a_missing_difference_is_wrong():
    cell = score(question(**EXPECT), obj([shared()]))
    assert cell.category == "wrong_other" and "v5p: missing 'v2-alpha-tpuv5'" in cell.reasons


def test_a_value_on_the_wrong_side_is_a_wrong_generation():
    cell = score(question(**EXPECT), obj([differs(v5p_text="TPU v5p | v2-alpha-tpuv6e")]))
    assert cell.category == "wrong_generation"


def test_a_cell_citing_out_of_its_scope_is_a_wrong_generation():
    cell = score(question(**EXPECT), obj([differs(v5p_cite="v6e#v")]))
    assert cell.category == "wrong_generation"


def test_an_invented_difference_is_wrong():
    same_text = differs(v6e_text="TPU v5p | v2-alpha-tpuv5")
    assert score(question(), obj([same_text])).category == "wrong_other"
    assert score(question(same=True), obj([differs()])).category == "wrong_other"
    assert score(question(same=True), obj([shared()])).category == "right"


def test_availability_is_scored_per_generation():
    row = {"kind": "availability", "topic": "x", "cells": [
        {"generation": "v5p", "text": "Create a VM.", "cite": "both#s", "values": [], "present": True, "available": True},
        {"generation": "v6e", "text": "Create a VM.", "cite": "both#s", "values": [], "present": True, "available": True}]}  # fmt: skip
    assert score(question(available={"v5p": True, "v6e": True}), obj([row])).category == "right"
    assert score(question(available={"v5p": True, "v6e": False}), obj([row])).category == "wrong_other"


def test_a_comparison_where_answers_were_expected_is_read_per_generation():
    q = TrapQuestion.model_validate(
        {"id": "q", "question": "Software version: v5p vs v6e?", "stratum": "two-generation", "split": "test",
         "expect": {"outcome": "answer", "scope": ["v5p", "v6e"],
                    "values": {"v5p": ["v2-alpha-tpuv5"], "v6e": ["v2-alpha-tpuv6e"]}}}  # fmt: skip
    )
    assert score(q, obj([differs()])).category == "right"
    assert score(q, obj([differs(v6e_text="TPU v6e | v2-alpha-tpuv5", v6e_cite="v5p#v")])).category == "wrong_generation"
