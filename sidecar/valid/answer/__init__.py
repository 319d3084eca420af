"""The answer engine: resolve scope → retrieve in scope → generate → check → ask / refuse → log.

    from valid.answer import open_engine
    with open_engine(".valid") as engine:                 # the active release, offline answerer
        result = engine.ask("I'm on Ironwood. Which --version do I pass when I create the VM?")
        print(result.answer.model_dump_json(indent=1))     # the answer object of `valid ask --json`

See docs/answer.md.
"""

from valid.lazy import lazy_attributes

# Loaded on first use (PEP 562): `valid ask --server` and `valid ask --help` read one or two
# submodules and must not pay for the whole engine.
_EXPORTS = {
    "AnswerEngine": "valid.answer.decide",
    "AskResult": "valid.answer.decide",
    "AnswerObject": "valid.answer.models",
    "GeminiGenerator": "valid.answer.generate",
    "Generator": "valid.answer.generate",
    "OfflineExtractive": "valid.answer.generate",
    "QuestionLog": "valid.questionlog.sqlite",  # re-exported: the log the engine writes by default
    "UnknownGenerationError": "valid.answer.scope",
    "check_answer": "valid.answer.check",
    "make_generator": "valid.answer.wiring",
    "open_engine": "valid.answer.wiring",
    "resolve_scope": "valid.answer.scope",
    "retrieve_in_scope": "valid.answer.retrieve",
    "rrf": "valid.answer.fusion",
    "validate_generation": "valid.answer.scope",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_attributes(__name__, _EXPORTS)
