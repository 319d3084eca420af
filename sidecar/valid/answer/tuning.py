"""Tuning: the floors and weights of one answer engine, in one object the engine owns.

The defaults are the values set on the trap sets' dev halves (docs/answer.md, "Calibration"); the
reason for each is its field's description. `valid.toml` `[tuning]` overrides any of them for the
engines a command opens (`open_engine(..., tuning=...)`); the engine hands its Tuning to retrieval,
the choice of builds to offer, the offline answerer and the word weights as arguments. Nothing
reads a module constant, so two engines in one process may be tuned differently.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Tuning(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # Retrieval (valid.answer.retrieve)
    similarity_floor: float = Field(
        0.55, ge=0, le=1, description="Cosine similarity that counts as relevant on its own (docs/answer.md)."
    )
    foreign_similarity: float = Field(
        0.35, ge=0, le=1,
        description="A question with two words no build's content writes, not even one edit away, is refused for "
        "a build whose best similarity stays below this (dev halves: it refuses out-of-domain questions that share "
        "ordinary words; at the similarity floor, 0.55, it refused paraphrased questions).",
    )
    foreign_similarity_large: float = Field(
        0.55, ge=0, le=1,
        description="foreign_similarity for a doc set that writes at least large_vocabulary distinct terms: the "
        "more words a doc set writes, the less a reader's word is missing from it by chance (dev halves: 0.55 "
        "refused two more out-of-domain questions on the DITA-OT docs and lost none on them, Impala or Oxygen; "
        "on the small samples it refused paraphrased questions).",
    )
    large_vocabulary: int = Field(
        5000, ge=0,
        description="Distinct terms (FTS5's vocabulary) from which a doc set's missing words use "
        "foreign_similarity_large (the samples write 450 and 744, the DITA-OT docs 5,196).",
    )
    coverage_floor: float = Field(
        0.5, ge=0, le=1, description="Share of the question's content words found in the retrieved chunks."
    )
    top_k: int = Field(5, ge=1, description="Fused chunks given to the generator.")
    rrf_k: int = Field(
        60, ge=1, description="Reciprocal rank fusion's k (Cormack et al. 2009): a channel's rank r adds 1/(k + r)."
    )
    # Which builds to offer when the question names none (valid.answer.choices)
    choice_floor: float = Field(
        0.3, ge=0, le=1,
        description="A build is offered when its content is relevant, or when its best similarity reaches this "
        "(calibrated on the trap sets' dev halves).",
    )
    dominance_coverage: float = Field(
        0.28, ge=0, le=1,
        description="An offered build is dropped when another covers this much more of the question (2 of 7 words).",
    )
    dominance_similarity: float = Field(
        0.08, ge=0, le=1, description="... and is this much nearer in meaning (tuned on the dev halves)."
    )
    dominance_near_gap: float = Field(
        0.2, ge=0, le=1,
        description="A build offered only as near is dropped beside one this much nearer in meaning, whatever the "
        "words (dev halves: 0.15 lost a question, 0.25 gained none).",
    )
    # The offline answerer's unit scores (valid.answer.extract)
    title_weight: float = Field(
        0.8, ge=0, description="A word of the chunk title counts for this much of a word of the unit itself."
    )
    kind_fit: float = Field(1.6, ge=0, description="Factor for a unit that can answer the kind of question asked.")
    kind_misfit: float = Field(
        0.5, ge=0,
        description="Factor for a unit that cannot: weighed down, not dropped (a grid on every dev file: 0.35, 0.5, "
        "0.7, 1.0; 0.7 and 1.0 gain more there but lose a sample's regression test; docs/answer.md).",
    )
    anchor_fit: float = Field(1.8, ge=0, description="Factor per anchor (flag, command, quoted term) the unit holds.")
    family_fit: float = Field(
        1.8, ge=0, description="Factor for a unit stating a quantity in the unit family asked for (memory: GiB)."
    )
    semantic_weight: float = Field(
        0.5, ge=0,
        description="A unit's hand-set score is multiplied by e^(this x its cosine similarity to the question), "
        "from the unit vectors stored with the release: a unit nearer the question in meaning ranks higher among "
        "units the rules weigh alike (a grid on the dev requests' top-1, docs/answer.md; 0 leaves meaning out).",
    )
    specific_value_boost: float = Field(
        1.7, ge=0,
        description="On top of the boost for content profiled for this build only, for count and value questions.",
    )
    # Words (valid.answer.text)
    compound_part_weight: float = Field(
        0.75, ge=0,
        description="How strongly a word inside a compound token (the vm of tpu-vm) says that word, against 1 "
        "for the word on its own.",
    )

    @classmethod
    def overriding(cls, overrides: dict[str, Any]) -> "Tuning":
        """The built-in tuning with the given keys replaced (None: keep the built-in value)."""
        return cls(**{key: value for key, value in overrides.items() if value is not None})

    def values(self) -> dict[str, Any]:
        return self.model_dump()


BUILT_IN = Tuning()
