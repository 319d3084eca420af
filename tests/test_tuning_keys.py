"""Every `[tuning]` key in valid.toml changes what `valid ask` returns (issue 25).

The floors and weights are one `Tuning` object (valid.answer.tuning) that each engine owns: valid.toml's
`[tuning]` reaches the engines a command opens, which hand it to every stage as an argument. No module
constant is patched by name (the old way, where a module that copied a constant at import never saw a
key: the `choice_floor` bug). Each case below asks the bundled Cloud TPU sample one question twice,
without and with the key set far from its built-in value, and asserts that the part of the answer the
key decides differs.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

import valid
from valid import config
from valid.answer.tuning import Tuning
from valid.answer.wiring import open_engine
from valid.cli import main


@dataclass(frozen=True)
class Case:
    question: str
    value: float
    changes: str  # "outcome", "choices", "answers" (the texts) or "cites" (the cited chunks, in order)
    why: str
    # Keys set in both runs, where the key under test only decides once others are moved out of its way.
    alongside: dict[str, float] = field(default_factory=dict)


CASES = {
    "similarity_floor": Case(
        "We run all our training on GKE. What's the gcloud command to add a node pool of v5p chips to an existing cluster?",
        0.0, "outcome", "refused as irrelevant at the built-in floor; a floor of 0 lets any similarity through",
    ),
    "foreign_similarity": Case(
        "Can I run the VM on a pizza oven in my zone?", 0.0, "outcome",
        "refused: no build writes 'pizza' or 'oven' and none is near the question in meaning; at 0 any similarity "
        "rescues it, and its ordinary words (run, VM, zone) pass the coverage floor",
    ),
    "foreign_similarity_large": Case(
        "Planning capacity: how many chips does one host hold?", 0.0, "outcome",
        "with every doc set counted large, the stricter floor refuses it ('planning' and 'capacity' are words "
        "the sample never writes, and no build is near enough); at 0 any similarity rescues it",
        alongside={"large_vocabulary": 0},
    ),
    "large_vocabulary": Case(
        "Planning capacity: how many chips does one host hold?", 0, "outcome",
        "asked back at the built-in value (the sample writes 450 terms, so foreign_similarity applies); at 0 every "
        "doc set is large and foreign_similarity_large refuses it",
    ),
    "coverage_floor": Case(
        "How much high-bandwith memory does a v6e chip have?", 1.0, "outcome",
        "answered on the words it covers; a floor of 1 needs every content word (and the typo misses one)",
    ),
    "choice_floor": Case(
        "how are the chips wired together in a pod, like what kind of torus is it?", 1.0, "choices",
        "generations that only come near are offered; a floor of 1 offers only those that answer",
    ),
    "dominance_coverage": Case(
        "how are the chips wired together in a pod, like what kind of torus is it?", 0.0, "choices",
        "a near generation is kept beside one covering more words; a margin of 0 drops it",
    ),
    "dominance_similarity": Case(
        "how are the chips wired together in a pod, like what kind of torus is it?", 0.0, "choices",
        "alone it changes no answer to the Cloud TPU trap set's questions (its margin only counts for a "
        "generation relevant by meaning yet under the coverage floor), so every generation is made relevant "
        "and any coverage margin counts: then only the similarity margin keeps the others offered",
        alongside={"similarity_floor": 0.0, "dominance_coverage": 0.0},
    ),
    "dominance_near_gap": Case(
        "how are the chips wired together in a pod, like what kind of torus is it?", 0.0, "choices",
        "a near generation is kept unless another is far nearer; a gap of 0 drops every near one",
    ),
    "top_k": Case(
        "What interconnect topology do TPU v6e pods use?", 1, "outcome",
        "five fused chunks cover the question's words; one chunk alone does not",
    ),
    "rrf_k": Case(
        "How many chips are in one TPU v5p VM?", 1, "cites",
        "k=1 lets the first rank of one channel outweigh agreement between channels",
    ),
    "title_weight": Case(
        "v5p TPU software version for JAX?", 0.0, "answers",
        "a unit under a title naming the software version wins only while title words count",
    ),
    "semantic_weight": Case(
        "What do I need before I can get Ironwood capacity at all?", 0.0, "answers",
        "the sentence on the reservation it takes is nearest the question in meaning and leads; without meaning, "
        "the chip count, which shares as many of its words, does",
    ),
    "specific_value_boost": Case(
        "For the tpu7x-standard-4t machine type, how many chips are in the VM?", 0.01, "answers",
        "for a count, content profiled for this generation only wins only while the boost lifts it (meaning, "
        "which prefers the other sentence's wording, left out)",
        alongside={"semantic_weight": 0.0},
    ),
    "kind_fit": Case(
        "Which TPU software verison do I pass for a Cloud TPU v6e VM?", 0.01, "answers",
        "a unit that can state a value of the kind asked wins only while fitting the kind counts",
    ),
    "compound_part_weight": Case(
        "Which TPU software verison do I pass for a Cloud TPU v6e VM?", 50.0, "answers",
        "a command whose tokens only hold the question's words (tpu-vm) loses while parts of compounds weigh less",
    ),
    "kind_misfit": Case(
        "How do I create a TPU v5p VM?", 50.0, "answers",
        "for a procedure the steps win while a sentence that is no step weighs less; weighing it more picks prose",
    ),
    "anchor_fit": Case(
        "Which --version do I pass for v5p and for v6e VMs?", 0.01, "answers",
        "the unit holding the flag the question names wins only while anchors count",
    ),
    "family_fit": Case(
        "v5p HBM per chip?", 0.01, "answers",
        "the unit stating a quantity of the asked unit family (memory) wins only while the family counts",
    ),
}


def observed(reply: dict, part: str):
    answers = reply.get("answers") or []
    if part == "outcome":
        return reply["outcome"]
    if part == "choices":
        return sorted(c["generation"] for c in reply.get("choices") or [])
    if part == "answers":
        return [a["answer"] for a in answers]
    return [[step["cite"] for step in a["steps"]] for a in answers]


def ask(question: str, state) -> dict:
    result = CliRunner().invoke(main, ["ask", question, "--json", "--no-log", "--state", str(state)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


KEYS = sorted(Tuning.model_fields)


@pytest.mark.parametrize("key", KEYS)
def test_each_tuning_key_from_the_file_changes_what_valid_ask_returns(key, sample_build, tmp_path, monkeypatch):
    if key not in CASES:
        pytest.fail(f"[tuning] {key} has no case in CASES")
    case = CASES[key]
    monkeypatch.chdir(tmp_path)
    alongside = "".join(f"{name} = {value}\n" for name, value in case.alongside.items())
    (tmp_path / "valid.toml").write_text("[tuning]\n" + alongside, encoding="utf-8")
    untuned = ask(case.question, sample_build.state)
    (tmp_path / "valid.toml").write_text(f"[tuning]\n{alongside}{key} = {case.value}\n", encoding="utf-8")
    tuned = ask(case.question, sample_build.state)
    assert config.load(start=tmp_path).tuning.values()[key] == case.value
    assert observed(tuned, case.changes) != observed(untuned, case.changes), (key, case.why, observed(untuned, case.changes))


def test_every_tuning_key_has_a_test():
    assert set(CASES) == set(Tuning.model_fields), set(Tuning.model_fields) ^ set(CASES)


def test_two_engines_with_different_tuning_in_one_process_answer_differently(sample_build):
    # One content word ("weekday") is in no chunk: coverage stays under 1, so floors of 1 refuse it.
    question = "How many chips does a TPU v5p VM have on a weekday?"
    strict = Tuning(similarity_floor=1.0, coverage_floor=1.0)
    with open_engine(sample_build.state, log=False, gap_issues=False) as built_in, \
            open_engine(sample_build.state, log=False, gap_issues=False, tuning=strict) as floored:
        assert floored.tuning_values()["similarity_floor"] == 1.0
        assert built_in.tuning_values() == Tuning().values()
        first = built_in.ask(question).answer.outcome
        refused = floored.ask(question).answer.outcome
        again = built_in.ask(question).answer.outcome  # the other engine's tuning did not leak into this one
    assert (first, refused, again) == ("answer", "refuse", "answer")


def _module_names(tree: ast.AST) -> set[str]:
    """Names a file binds to modules: `import x.y as z`, `from x import y` (y may be a module) and
    `m = importlib.import_module(...)`."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and "import_module" in ast.unparse(node.value.func):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def test_no_module_global_is_patched_and_no_module_keeps_a_tuned_constant():
    """Tuning lives in one object the engine owns: no module defines a constant for a [tuning] key
    (CHOICE_FLOOR, ...), and no module sets an attribute of another module (setattr on a module is
    how the old apply() tuned, and a module that copied the constant never saw it)."""
    constants = {key.upper() for key in Tuning.model_fields}
    found = []
    for path in sorted(Path(valid.__file__).parent.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = _module_names(tree)
        for node in tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found += [f"{path.name}:{node.lineno} {t.id}" for t in targets if isinstance(t, ast.Name) and t.id in constants]
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and node.args:
                target = node.args[0]
                if (isinstance(target, ast.Name) and target.id in modules) or (
                    isinstance(target, ast.Call) and "import_module" in ast.unparse(target.func)
                ):
                    found.append(f"{path.name}:{node.lineno} setattr({ast.unparse(target)}, ...)")
    assert not found, found


def test_an_engine_refuses_an_offline_answerer_built_with_other_weights(sample_build):
    from valid.answer.wiring import make_generator
    from valid.errors import ConfigError

    strict = Tuning(kind_fit=0.01)
    with pytest.raises(ConfigError, match="other floors and weights"):
        open_engine(sample_build.state, generator=make_generator("offline"), tuning=strict, log=False, gap_issues=False)
    with open_engine(
        sample_build.state, generator=make_generator("offline", strict), tuning=strict, log=False, gap_issues=False
    ) as engine:
        assert engine.generator.tuning == strict == engine.tuning


def test_the_service_answers_with_the_tuning_its_settings_carry(sample_build):
    """`valid serve` gives valid.toml's [tuning] to EngineSettings; every answerer it opens uses it."""
    from valid.index import Store
    from valid.serve.library import EngineSettings, LibraryReleases

    question = "How many chips does a TPU v5p VM have on a weekday?"  # "weekday" is in no chunk
    outcomes = {}
    for name, tuning in (("built-in", Tuning()), ("floored", Tuning(similarity_floor=1.0, coverage_floor=1.0))):
        source = LibraryReleases(Store(sample_build.state), EngineSettings(log_questions=False, tuning=tuning))
        answerer = source.open(sample_build.release_id)
        try:
            outcomes[name] = answerer.ask(question, None).answer["outcome"]
        finally:
            answerer.close()
    assert outcomes == {"built-in": "answer", "floored": "refuse"}
