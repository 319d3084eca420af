"""The `valid` command line: a thin shell over the library.

Each area of VALID contributes its commands from `valid.commands.<area>` (a module with a
`commands` list of click commands). An area is imported only when one of its commands runs (or
for `valid --help`): `valid ask` need not load the HTTP server, the GitHub client or the XSLT
engine before it answers. COMMANDS names each command's area; a test checks it against the
areas' own lists. Errors that VALID raises on purpose (ValidError) are printed as one line with a
non-zero exit; anything else is a bug and keeps its traceback.

Before any command runs, the group reads valid.toml (valid.config): its values become the
commands' defaults, under flags and environment variables.
"""

from __future__ import annotations

import importlib
import sys

import click

from valid import __version__
from valid.errors import ValidError

# command name -> area (module valid.commands.<area>)
COMMANDS = {
    "export": "export",
    "schema": "export",
    "warnings": "export",
    "index": "index",
    "releases": "index",
    "audit": "audit",
    "ask": "answer",
    "log": "log",
    "eval": "evaluate",
    "report": "evaluate",
    "demo": "evaluate",
    "serve": "serve",
    "init": "init",
}
AREAS = tuple(dict.fromkeys(COMMANDS.values()))


def area_commands(area: str) -> dict[str, click.Command]:
    """The commands an area's module contributes, by name (imports the module)."""
    module = importlib.import_module(f"valid.commands.{area}")
    return {command.name: command for command in module.commands}


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        area = COMMANDS.get(name)
        return area_commands(area).get(name) if area else None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except ValidError as err:
            click.echo(f"valid: error: {err}", err=True)
            sys.exit(2)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="valid")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), envvar="VALID_CONFIG",
              help="valid.toml to use (default: the nearest valid.toml in this directory or a parent).")
@click.pass_context
def main(ctx: click.Context, config_path: str | None) -> None:
    """VALID: answer only from DITA content profiled for the reader's generation."""
    from valid import config

    settings = config.load(config_path)
    ctx.default_map = config.default_map(settings)
    ctx.meta[config.CONTEXT_KEY] = settings  # [tuning]: given to the engines the command opens
    config.apply(settings)
