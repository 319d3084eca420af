"""Contracts of the answer engine (pydantic).

`AnswerObject` is what `valid ask --json` prints and what the HTTP service returns; its shape is the
issue's, field for field. The other models are the typed values passed between the stages:
scope resolution → retrieval outcome → draft → check report → decision → log row.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

Outcome = Literal["answer", "ask", "refuse", "compare", "versions"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- the answer object (public contract) ------------------------------------------------------


class Step(_Model):
    text: str
    cite: str = Field(description="The chunk id this step is taken from (never an alias).")
    title_path: list[str] = Field(
        default_factory=list,
        description="The cited topic's title path, as readers see it: enclosing topic titles, then the cited "
        "part's own title (the map title left out). What a citation shows instead of the chunk id.",
    )
    pages: dict[str, str] = Field(
        default_factory=dict,
        description="Where the cited text is published, per build (profile name -> URL), from the service's "
        "`published_url`; empty when none is set (then the citation links to the source view).",
    )


class GenerationAnswer(_Model):
    generation: str = Field(description="The profile this answer is for (the first of `generations`).")
    generations: list[str] = Field(
        default_factory=list,
        description="Every profile this answer is for, in profile order: several when their in-scope answers "
        "are the same text from the same sources, shown once. Clients that read `generation` alone see the first.",
    )
    answer: str
    steps: list[Step]

    @model_validator(mode="after")
    def _for_its_own_generation(self):
        # An answer written for one generation (or read from a log older than the field) is for that one.
        if not self.generations:
            self.generations = [self.generation]
        return self


class Choice(_Model):
    generation: str
    label: str = Field(description="The generation's display name from the subject scheme.")


class Refusal(_Model):
    reason: str
    missing: str = Field(description="What content is missing, in words a writer can act on.")
    gap_issue: str | None = Field(description="Id (fingerprint) of the gap issue opened for a writer.")


class Run(_Model):
    generator: str
    model: str | None
    calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: float
    latency_ms: float


# -- the comparison (outcome "compare"; see valid.answer.compare and docs/compare.md) ------------


class ComparisonCell(_Model):
    """One generation's side of a comparison row."""

    generation: str
    text: str = Field(description="Verbatim text of this generation's chunk, or why there is none.")
    values: list[str] = Field(default_factory=list, description="Values of this side that the other side does not state.")
    cite: str | None = Field(description="The chunk this side is taken from (in scope for this generation).")
    present: bool = Field(default=True, description="False: this generation's documentation has no counterpart.")
    available: bool | None = Field(default=None, description="In an availability row: is the subject available here?")
    page: str | None = Field(
        default=None, description="Where the cited text is published for this generation (the service's published_url)."
    )


class ComparisonRow(_Model):
    kind: Literal["differs", "only", "shared", "availability"]
    topic: str = Field(description="Where in the documentation (the chunk's breadcrumbs).")
    cells: list[ComparisonCell] = Field(description="One cell per generation compared, in the comparison's order.")


class Comparison(_Model):
    kind: Literal["difference", "availability"]
    generations: list[str]
    labels: list[str]
    summary: str
    rows: list[ComparisonRow]
    subject: str = Field(default="", description="What an availability question asks about.")
    statements: list[ComparisonCell] = Field(
        default_factory=list, description="The model's statements (Gemini writer), each checked against its own side."
    )


# -- questions about the versions themselves (outcome "versions"; see valid.answer.versions) -------

VersionsKind = Literal["list", "count", "latest", "oldest", "exists", "since", "until", "changed", "same"]


class VersionEvidence(_Model):
    """One cited piece of what a versions answer says, for one version."""

    generation: str
    text: str = Field(description="Verbatim from the cited chunk, or the subject scheme's entry for the version.")
    cite: str | None = Field(description="The chunk it is taken from (in scope for this generation); None: the subject scheme.")
    role: Literal["scheme", "has", "lacks", "notice", "release-notes", "change", "value"] = Field(
        description="scheme: the version's entry in the subject scheme; has / lacks: this build documents the "
        "subject / does not; notice: a deprecation or removal notice; release-notes: a release-note topic scoped "
        "to the release; change: what differs from the previous build; value: what this build says about the subject."
    )


class VersionsAnswer(_Model):
    kind: VersionsKind = Field(
        description="list, count, latest, oldest, exists (catalog answers from the subject scheme); since, until "
        "(the first / last build that documents the subject); changed (a release against its predecessor); "
        "same (is the subject the same in every version)."
    )
    product: str = Field(description="The product whose versions are meant ('' when the doc set has one).")
    subject: str = Field(default="", description="What since / until / same ask about.")
    versions: list[str] = Field(
        description="The profiles the answer names, oldest first: the list; the latest / oldest; the named version "
        "or the documented ones nearest to it; the last build without the subject and the first with it (since), "
        "the last with it and the first without (until); the predecessor and the release (changed); the builds "
        "compared (same)."
    )
    labels: list[str] = Field(description="The display names of `versions`, in the same order.")
    verdict: bool | None = Field(default=None, description="exists: is it documented; same: is it the same in every build.")
    summary: str
    gaps: list[str] = Field(default_factory=list, description="Builds inside the range that do not document the subject.")
    evidence: list[VersionEvidence]


class AnswerObject(_Model):
    outcome: Outcome
    scope: list[str]
    matched: list[str]
    answers: list[GenerationAnswer]
    choices: list[Choice]
    refusal: Refusal | None
    not_used: str
    checks: dict
    run: Run
    release: str
    comparison: Comparison | None = Field(
        default=None, description="With outcome 'compare': the computed difference, every cell cited."
    )
    versions: VersionsAnswer | None = Field(
        default=None, description="With outcome 'versions': an answer about the versions themselves, every claim cited."
    )

    @model_serializer(mode="wrap")
    def _without_empty_comparison(self, handler):
        # Additive: an answer, ask or refusal prints exactly the keys it always had.
        data = handler(self)
        if isinstance(data, dict):
            for key in ("comparison", "versions"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


# -- values passed between stages ---------------------------------------------------------------


class ScopeResolution(_Model):
    """What resolve_scope found in a question (and the explicit generation, if one was given)."""

    profiles: list[str] = Field(description="Resolved profiles, in the export header's profile order.")
    matched: list[str] = Field(description="The words of the question that decided the scope, in question order.")
    unknown: list[str] = Field(
        default_factory=list, description="Generation-like names the subject scheme does not know."
    )
    words: dict[str, list[str]] = Field(default_factory=dict, description="Profile → the matched words naming it.")
    candidates: list[str] = Field(
        default_factory=list,
        description="No profile resolved, but the question narrows to these (a product named, a partial version).",
    )
    version_named: bool = Field(
        default=False,
        description="The candidates all have a version the question names, one per product: only which product is unsaid.",
    )


class ChannelHit(_Model):
    chunk_id: str
    rank: int = Field(ge=1)
    score: float


class FusedHit(_Model):
    chunk_id: str
    rank: int = Field(ge=1)
    score: float = Field(description="RRF score: sum over channels of 1 / (k + rank).")
    ranks: dict[str, int] = Field(description="Rank in each channel that returned the chunk.")


class EvidenceChunk(_Model):
    """One in-scope chunk as the generator sees it."""

    id: str
    alias: str = Field(description="Per-request citation alias: c1, c2, … in fused order.")
    text: str
    title: str
    breadcrumbs: list[str] = Field(
        default_factory=list, description="Map title, enclosing topic titles, then the chunk's own title."
    )
    scope: list[str] = Field(description="Profiles whose build keeps this chunk.")
    code: list[str] = Field(
        default_factory=list, description="The chunk's code phrases and blocks, verbatim (from the export)."
    )
    part_of: str = Field(
        default="",
        description="A part the export split from another chunk (a profiled choicetable inside a step): that "
        "chunk's id. Empty for a chunk of its own.",
    )
    part_step: int = Field(default=0, description="With part_of: the 1-based step it sits in (0: not in a step).")
    element: str = Field(
        default="",
        description="The DITA element the chunk is, by its name in the export's source path (condition, "
        "remedy, steps, section, ...): what kind of text it is. Empty where the source has no path.",
    )


class RetrievalOutcome(_Model):
    profile: str
    status: Literal["complete", "degraded"]
    reasons: list[str] = Field(default_factory=list, description="Why the outcome is degraded (empty if complete).")
    channels: dict[str, list[ChannelHit]] = Field(description="Per-channel hits, channel name → ranked hits.")
    fused: list[FusedHit]
    chunks: list[EvidenceChunk] = Field(description="The top fused chunks, texts included, every one in scope.")
    in_scope_count: int
    relevant: bool = Field(description="Did the best hit clear the similarity or BM25 floor?")
    best_similarity: float | None = None
    best_bm25: float | None = None
    coverage: float = Field(default=0.0, description="Share of the question's content words in the chunks.")


class DraftStep(_Model):
    text: str
    cite: str = Field(description="As the generator wrote it: a chunk id once aliases are mapped back.")


class Draft(_Model):
    """One generator attempt, before the checks."""

    scope: list[str]
    answer: str
    steps: list[DraftStep]
    model: str | None = None
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    error: str | None = Field(default=None, description="Output the generator produced but that is not a valid draft.")
    unavailable: str | None = Field(
        default=None, description="The generator could not be called at all (after its retries): no draft."
    )


class StepFailure(_Model):
    step: int = Field(description="0-based step index, or -1 for the answer sentence / the whole draft.")
    check: Literal["citations_in_scope", "values_grounded", "out_of_scope_values", "draft_valid"]
    reason: str


class CheckReport(_Model):
    passed: bool
    citations: int
    citations_in_scope: int
    values: int
    values_grounded: int
    out_of_scope_values: int
    failures: list[StepFailure]
