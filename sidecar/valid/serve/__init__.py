"""`valid serve`: the HTTP service and the ask page over the library (see docs/serve.md)."""

from valid.serve.app import create_app, openapi_json
from valid.serve.config import ServeConfig
from valid.serve.answerer import Answered, Answerer, Generation, ReleaseSource, SourceChunk, UnknownGeneration
from valid.serve.limits import Limits

__all__ = [
    "Answered",
    "Answerer",
    "Generation",
    "Limits",
    "ReleaseSource",
    "ServeConfig",
    "SourceChunk",
    "UnknownGeneration",
    "create_app",
    "openapi_json",
]
