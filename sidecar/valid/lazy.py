"""Package attributes imported on first use (PEP 562), so importing a package stays cheap.

`valid ask` opens an index, which reads `valid.export.file`; `valid ask --help` and the CLI's client
mode import `valid.answer`. Neither should load the export pipeline or the answer engine with it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping


def lazy_attributes(package: str, exports: Mapping[str, str]) -> Callable[[str], object]:
    """A module `__getattr__` for `package`: name -> the module that defines it (a name without a
    dot is a submodule of `package`). Each name is imported once, on first use."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str):
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = exports[name] if "." in exports[name] else f"{package}.{exports[name]}"
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # later reads find it without coming back here
        return value

    return __getattr__
