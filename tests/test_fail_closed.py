"""Parts of VALID that cannot be imported are a broken install: the command fails loudly (a
traceback, a non-zero exit), never silently narrower. Issue: `valid` used to drop a command area
whose module was missing, and `valid index` reported zero scope findings when the audit could not
be imported."""

from __future__ import annotations

import sys

from click.testing import CliRunner

from valid import cli
from valid.cli import main


def test_a_command_whose_area_cannot_be_imported_fails_instead_of_vanishing(monkeypatch):
    real = cli.importlib.import_module

    def broken(name, *args, **kwargs):
        if name == "valid.commands.audit":
            raise ModuleNotFoundError("No module named 'valid.commands.audit'", name=name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(cli.importlib, "import_module", broken)
    result = CliRunner().invoke(main, ["audit", "--help"])
    assert result.exit_code != 0
    assert isinstance(result.exception, ModuleNotFoundError)
    # The command list needs every area's help: it fails too, never a silently shorter list.
    listing = CliRunner().invoke(main, ["--help"])
    assert listing.exit_code != 0 and isinstance(listing.exception, ModuleNotFoundError)


def test_index_fails_when_the_audit_cannot_be_imported_and_builds_no_release(corvane_export, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "valid.audit.findings", None)  # import raises ImportError
    state = tmp_path / "state"
    result = CliRunner().invoke(main, ["index", str(corvane_export), "--state", str(state)])
    assert result.exit_code != 0
    assert isinstance(result.exception, ImportError)
    assert not (state / "releases").exists() or not any((state / "releases").iterdir())
