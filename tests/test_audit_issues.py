"""The gap-issue store: one issue per finding, no duplicates on rerun, fixed findings close."""

import json

import pytest

from fixtures.audit.exports import chunk, export
from valid.audit import IssueStore, find
from valid.errors import ConfigError

ALL = ["v5p", "v6e", "tpu7x"]
TRAP = chunk("create-tpu-vm.dita#create-tpu-vm/steps", "Run --version=v2-alpha-tpuv6e.", ALL, line=41)
OTHER = chunk("about.dita#about/x", "Use v5p-8 for the examples.", ALL, line=12)
FIXED = chunk("create-tpu-vm.dita#create-tpu-vm/steps", "Run --version=${VERSION}.", ALL, line=41)


def test_sync_opens_one_issue_per_finding(tmp_path):
    store = IssueStore(tmp_path)
    opened, closed, unchanged = store.sync(find(export([TRAP, OTHER])))
    assert [i.number for i in opened] == [1, 2]
    assert closed == unchanged == []
    lines = (tmp_path / "issues.jsonl").read_text().splitlines()
    assert [json.loads(line)["source"] for line in lines] == ["about.dita:12", "create-tpu-vm.dita:41"]
    assert "valid-fingerprint" in store.issues()[1].body
    assert "2 open, 0 closed" in (tmp_path / "ISSUES.md").read_text()


def test_rerun_never_duplicates_an_issue_and_rewrites_nothing(tmp_path):
    store = IssueStore(tmp_path)
    store.sync(find(export([TRAP, OTHER])))
    before = (tmp_path / "issues.jsonl").read_bytes(), (tmp_path / "ISSUES.md").read_bytes()
    opened, closed, unchanged = store.sync(find(export([TRAP, OTHER])))
    assert (opened, closed) == ([], [])
    assert [i.number for i in unchanged] == [1, 2]
    assert len(store.issues()) == 2
    assert ((tmp_path / "issues.jsonl").read_bytes(), (tmp_path / "ISSUES.md").read_bytes()) == before


def test_fixed_finding_closes_its_gap_issue(tmp_path):
    store = IssueStore(tmp_path)
    store.sync(find(export([TRAP, OTHER])))
    opened, closed, unchanged = store.sync(find(export([FIXED, OTHER])))
    assert opened == []
    assert [(i.number, i.state, i.source) for i in closed] == [(2, "closed", "create-tpu-vm.dita:41")]
    assert [i.number for i in unchanged] == [1]
    summary = (tmp_path / "ISSUES.md").read_text()
    assert "1 open, 1 closed" in summary
    assert "- #2 (scope-finding, `create-tpu-vm.dita:41`)" in summary


def test_finding_that_comes_back_reopens_its_issue(tmp_path):
    store = IssueStore(tmp_path)
    store.sync(find(export([TRAP])))
    store.sync(find(export([FIXED])))
    opened, _, _ = store.sync(find(export([TRAP])))
    assert [(i.number, i.state, i.times_opened) for i in opened] == [(1, "open", 2)]
    assert len(store.issues()) == 1


def test_moved_finding_keeps_its_issue_and_updates_its_line(tmp_path):
    store = IssueStore(tmp_path)
    store.sync(find(export([TRAP])))
    moved = chunk(TRAP.id, TRAP.text, ALL, line=57)
    opened, closed, unchanged = store.sync(find(export([moved])))
    assert (opened, closed) == ([], [])
    assert [(i.number, i.source) for i in unchanged] == [(1, "create-tpu-vm.dita:57")]


def test_open_issue_is_idempotent_for_a_fingerprint(tmp_path):
    store = IssueStore(tmp_path)
    first = store.open_issue("refusal", "f" * 64, "Nothing in scope answers X for tpu7x", "body", "question")
    again = store.open_issue("refusal", "f" * 64, "Nothing in scope answers X for tpu7x", "body 2", "question")
    assert (first.number, again.number, again.body) == (1, 1, "body 2")
    assert len(store.issues()) == 1


def test_sync_of_scope_findings_leaves_other_kinds_open(tmp_path):
    store = IssueStore(tmp_path)
    store.open_issue("refusal", "f" * 64, "Nothing in scope answers X for tpu7x", "body", "question")
    store.sync(find(export([TRAP])))
    opened, closed, unchanged = store.sync([])
    assert [i.kind for i in closed] == ["scope-finding"]
    assert store.get("f" * 64).state == "open"


def test_the_same_calls_write_byte_identical_stores(tmp_path):
    for name in ("a", "b"):
        store = IssueStore(tmp_path / name)
        store.sync(find(export([TRAP, OTHER])))
        store.sync(find(export([FIXED, OTHER])))
    for file in ("issues.jsonl", "ISSUES.md"):
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes()


def test_a_corrupt_record_is_a_one_line_config_error(tmp_path):
    (tmp_path / "issues.jsonl").write_text('{"number": 1}\n')
    with pytest.raises(ConfigError, match=r"issues.jsonl:1: not an issue record"):
        IssueStore(tmp_path).issues()
