"""The trap set: questions whose right answer differs by generation, as JSON lines.

One question per line:
    {"id": str, "question": str, "stratum": str, "split": "dev"|"test",
     "expect": {"outcome": "answer"|"ask"|"refuse" or a list of acceptable outcomes,
                "scope": [profiles], "values": {profile: [required, or [alternatives]]},
                "forbidden": [strings that must not appear], "choices": [profiles offered when asking],
                "differences": {profile: [values its side shows]}, "wrong_side": {profile: [values never
                shown for it]}, "available": {profile: bool}, "same": bool,
                # questions about the versions themselves (outcome "versions"):
                "kind": "list"|"count"|"latest"|"oldest"|"exists"|"since"|"until"|"changed"|"same",
                "versions": [profiles the answer names], "verdict": bool, "mentions": [required],
                "cited": [profiles with cited evidence]}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from valid import tokens
from valid.errors import ValidError

Outcome = Literal["answer", "ask", "refuse", "compare", "versions"]
# "absent": the question names a generation, but what it asks about does not exist in that generation's
# content (a command removed there, an option added later); the right outcome is a refusal.
# "comparison": what differs between named generations, or whether something is available on one;
# the right outcome is a computed comparison (see valid.evaluate.compare_score).
# "shared": the question names no generation and every generation's content says the same thing;
# the right outcome is one answer for all of them, not a question back.
# "versions": a question about the versions themselves (which exist, the latest, since when, what changed
# in a release, the same in every one); the right outcome is a versions answer of the expected kind
# (see valid.evaluate.versions_score).
Stratum = Literal["scoped", "unscoped", "shared", "two-generation", "absent", "out-of-domain", "comparison", "versions"]
VersionsKind = Literal["list", "count", "latest", "oldest", "exists", "since", "until", "changed", "same"]
# Every trap set is split once, fixed and committed: floors and weights are tuned on "dev" only, and the
# scorecard reports "test".
Split = Literal["dev", "test"]
Required = Union[str, list[str]]  # one string, or alternatives of which one must appear


def mentions_any(text: str, required: Required) -> bool:
    """The text mentions the required string, or one of its alternatives (valid.tokens.mentions)."""
    options = [required] if isinstance(required, str) else required
    return any(tokens.mentions(text, option) for option in options)


class Expectation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    outcome: Union[Outcome, list[Outcome]]
    scope: list[str] = Field(default_factory=list)
    values: dict[str, list[Required]] = Field(default_factory=dict)
    forbidden: list[str] = Field(default_factory=list)
    choices: list[str] = Field(default_factory=list)
    # Comparisons (outcome "compare"):
    differences: dict[str, list[Required]] = Field(
        default_factory=dict, description="Per generation: values its side of a difference must show."
    )
    wrong_side: dict[str, list[str]] = Field(
        default_factory=dict, description="Per generation: values that must not be shown for it (another side's)."
    )
    available: dict[str, bool] = Field(default_factory=dict, description="Per generation: the expected yes / no.")
    same: bool | None = Field(default=None, description="True: nothing differs, and the comparison must say so.")
    # Questions about the versions themselves (outcome "versions"):
    kind: VersionsKind | None = Field(default=None, description="The kind of versions answer expected.")
    versions: list[str] = Field(
        default_factory=list,
        description="The profiles the answer names as its result, exactly: the list, the latest, the first build "
        "with X and the last one before it without, a release and its predecessor, the builds compared.",
    )
    verdict: bool | None = Field(default=None, description="The expected yes / no (exists, the same in every version).")
    mentions: list[Required] = Field(default_factory=list, description="Strings the answer's text must mention.")
    cited: list[str] = Field(
        default_factory=list, description="Profiles for each of which the answer cites evidence in that profile's scope."
    )

    @field_validator("outcome")
    @classmethod
    def _non_empty(cls, value):
        if isinstance(value, list) and not value:
            raise ValueError("outcome list must not be empty")
        return value

    def acceptable(self) -> list[str]:
        return [self.outcome] if isinstance(self.outcome, str) else list(self.outcome)


class TrapQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    stratum: Stratum
    split: Split
    fact: str | None = Field(default=None, description="The fact a scoped question asks about (for clustering).")
    expect: Expectation


def load_trapset(path: str | Path) -> list[TrapQuestion]:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise ValidError(f"{path}: cannot read the trap set ({err.strerror})") from None
    questions: list[TrapQuestion] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            question = TrapQuestion.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValueError) as err:
            first = str(err).splitlines()[0]
            raise ValidError(f"{path}:{number}: not a trap-set question: {first}") from None
        if question.id in seen:
            raise ValidError(f"{path}:{number}: duplicate question id {question.id!r}")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise ValidError(f"{path}: the trap set is empty")
    return questions


SPLITS = ("dev", "test", "all")


def select_split(questions: list[TrapQuestion], split: str) -> list[TrapQuestion]:
    """The questions of one half ("dev", "test") or all of them ("all")."""
    if split not in SPLITS:
        raise ValidError(f"unknown split {split!r}; choose one of: {', '.join(SPLITS)}")
    return [q for q in questions if split == "all" or q.split == split]
