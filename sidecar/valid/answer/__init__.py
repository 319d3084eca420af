"""The answer engine: resolve scope → retrieve in scope → generate → check → ask / refuse → log.

Public entry points are re-exported here; see docs/answer.md.
"""
