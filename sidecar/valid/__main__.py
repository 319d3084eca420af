"""`python -m valid` is the `valid` command."""

from valid.cli import main

main(prog_name="valid")
