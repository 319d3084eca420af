"""The `valid` command line: a thin shell over the library.

Each area of VALID contributes its commands from `valid.commands.<area>` (a module with a
`commands` list of click commands). Errors that VALID raises on purpose (ValidError) are printed as
one line with a non-zero exit; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import sys

import click

from valid import __version__
from valid.errors import ValidError

AREAS = ("export", "index", "audit", "answer", "evaluate", "serve")


class _Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ValidError as err:
            click.echo(f"valid: error: {err}", err=True)
            sys.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="valid")
def main() -> None:
    """VALID: answer only from DITA content profiled for the reader's generation."""


for _area in AREAS:
    try:
        _module = importlib.import_module(f"valid.commands.{_area}")
    except ModuleNotFoundError as _err:  # an area not built yet; any other import error is a bug
        if _err.name != f"valid.commands.{_area}":
            raise
        continue
    for _command in _module.commands:
        main.add_command(_command)
