"""The `valid` command line loads only the area of the command it runs.

`valid ask` must not pay at start-up for the HTTP server, the GitHub client (httpx), the XSLT engine or
the export pipeline, though its index reads export files through valid.export.file (docs/benchmarks.md,
"Ask at scale", measures the start-up share). Every command stays reachable:
the lazy table names exactly the commands the areas contribute.
"""

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from valid.cli import COMMANDS, area_commands, main

SIDECAR = Path(__file__).resolve().parents[1] / "sidecar"


def modules_loaded_by(*argv: str) -> set[str]:
    code = (
        "import sys\n"
        "from valid.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r}, prog_name='valid')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": str(SIDECAR), "PATH": ""}
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.split())


def test_the_lazy_table_names_every_command_of_every_area():
    by_area: dict[str, set[str]] = {}
    for name, area in COMMANDS.items():
        by_area.setdefault(area, set()).add(name)
    for area, names in by_area.items():
        assert set(area_commands(area)) == names, area


def test_every_command_is_listed_and_has_help():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    for name in COMMANDS:
        assert f"  {name} " in result.output
        assert CliRunner().invoke(main, [name, "--help"]).exit_code == 0, name


def test_ask_does_not_load_the_server_the_github_client_the_xslt_engine_or_the_export_pipeline():
    loaded = modules_loaded_by("ask", "--help")
    assert "valid.commands.answer" in loaded
    for other in ("valid.commands.serve", "valid.commands.audit", "valid.commands.export", "fastapi", "saxonche",
                  "valid.audit.github", "httpx", "valid.export.run"):
        assert other not in loaded, other
    assert not any(m == "valid.serve" or m.startswith("valid.serve.") for m in loaded)


def test_an_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(main, ["nonsense"])
    assert result.exit_code == 2
    assert "No such command 'nonsense'" in result.output
