"""VALID's exceptions. Callers catch by meaning:

    ValidError                      anything VALID reports to a user as one line
    ├── DitaError                   a problem in the doc set: carries file and line
    │   ├── DitaSyntaxError         malformed XML
    │   ├── MissingTargetError      an href/conref/mapref target that does not exist
    │   ├── UnsafeReferenceError    a reference outside the doc set, or to an external entity
    │   └── SchemeValueError        a profiling value the subject scheme does not declare
    ├── DitavalError                an unreadable or invalid DITAVAL
    ├── ExportContractError         an export line that breaks the JSON contract
    ├── StrictWarningsError         an export with warnings under --strict (nothing written)
    ├── ConfigError                 a missing key, server or setting (actionable message)
    ├── OutputError                 an output that cannot or must not be written (not a regular file,
    │                               one of the inputs, disk full, no permission, an empty export)
    ├── ProviderError               a model or embedding provider failed, answered badly, or is unreachable
    └── ReleaseError                index releases: activation conflicts, missing releases
"""

from __future__ import annotations


class ValidError(Exception):
    """Base class: str(error) is a complete, one-line, actionable message."""


class DitaError(ValidError):
    def __init__(self, path: str, line: int | None, message: str):
        self.path = path
        self.line = line
        self.message = message
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {message}")

    def __reduce__(self):
        # Rebuilt from its parts, so that an error raised in a worker process (valid.export.workers)
        # reaches the command as the same error with the same one-line message.
        return (type(self), (self.path, self.line, self.message))


class DitaSyntaxError(DitaError):
    pass


class MissingTargetError(DitaError):
    pass


class UnsafeReferenceError(DitaError):
    pass


class SchemeValueError(DitaError):
    pass


class DitavalError(ValidError):
    pass


class ExportContractError(ValidError):
    pass


class StrictWarningsError(ValidError):
    """The export was complete but had warnings, and strict mode makes warnings fail the run.
    `warnings` holds every one, so the caller can list them all before the one-line error."""

    def __init__(self, warnings: list, out: str):
        self.warnings = list(warnings)
        super().__init__(f"{len(self.warnings)} warning(s) with --strict: {out} is not written")


class ConfigError(ValidError):
    pass


class OutputError(ValidError):
    pass


class ProviderError(ValidError):
    pass


class ReleaseError(ValidError):
    pass
