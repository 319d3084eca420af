"""Small statistics for the scorecard."""

from __future__ import annotations

import math


def wilson_interval(successes: int, total: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    if total <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= total:
        raise ValueError("successes must be between 0 and total")
    if successes == total:  # exact at the edges; the formula leaves float noise there
        return (_lower(successes, total, z), 1.0)
    if successes == 0:
        return (0.0, 1.0 - _lower(total, total, z))
    return (_lower(successes, total, z), _upper(successes, total, z))


def _bounds(successes: int, total: int, z: float) -> tuple[float, float]:
    p = successes / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def _lower(successes: int, total: int, z: float) -> float:
    return _bounds(successes, total, z)[0]


def _upper(successes: int, total: int, z: float) -> float:
    return _bounds(successes, total, z)[1]
