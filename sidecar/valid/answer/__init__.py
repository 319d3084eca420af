"""The answer engine: resolve scope → retrieve in scope → generate → check → ask / refuse → log.

    from valid.answer import open_engine
    with open_engine(".valid") as engine:                 # the active release, offline answerer
        result = engine.ask("I'm on Ironwood. Which --version do I pass when I create the VM?")
        print(result.answer.model_dump_json(indent=1))     # the answer object of `valid ask --json`

See docs/answer.md.
"""

from valid.answer.check import check_answer
from valid.answer.decide import AnswerEngine, AskResult
from valid.answer.wiring import make_generator, open_engine
from valid.answer.fusion import rrf
from valid.answer.generate import GeminiGenerator, Generator, OfflineExtractive
from valid.questionlog.sqlite import QuestionLog  # re-exported: the log the engine writes by default
from valid.answer.models import AnswerObject
from valid.answer.retrieve import retrieve_in_scope
from valid.answer.scope import UnknownGenerationError, resolve_scope, validate_generation

__all__ = [
    "AnswerEngine",
    "AnswerObject",
    "AskResult",
    "GeminiGenerator",
    "Generator",
    "OfflineExtractive",
    "QuestionLog",
    "UnknownGenerationError",
    "check_answer",
    "make_generator",
    "open_engine",
    "resolve_scope",
    "retrieve_in_scope",
    "rrf",
    "validate_generation",
]
