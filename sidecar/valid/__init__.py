"""VALID: version-aware lookup in DITA."""

__version__ = "0.1.0"
