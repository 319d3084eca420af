"""The price table: USD per million tokens, per answer model.

Every question's cost is computed from this table and logged, offline answers included (cost 0).
The defaults are list prices from the Gemini API pricing page (paid tier); a
deployment overrides or extends them in valid.toml (`[prices."MODEL"]`, applied by `configure`) or
with a JSON file named by VALID_PRICES, which wins over both:

    {"gemini-3.8-flash": {"input_per_million": 0.30, "output_per_million": 2.50}}

A model with no price is a configuration error, raised before any question is answered, so no
question is ever logged without its cost.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from valid.errors import ConfigError

DEFAULT_PRICES: dict[str, dict[str, float]] = {
    "offline": {"input_per_million": 0.0, "output_per_million": 0.0},
    "gemini-3.8-flash": {"input_per_million": 0.30, "output_per_million": 2.50},
    "gemini-2.5-flash": {"input_per_million": 0.30, "output_per_million": 2.50},
    "gemini-2.5-flash-lite": {"input_per_million": 0.10, "output_per_million": 0.40},
    "gemini-2.5-pro": {"input_per_million": 1.25, "output_per_million": 10.00},
}

# Prices from valid.toml (valid.config.apply): over the defaults, under VALID_PRICES.
_configured: dict[str, dict[str, float]] = {}


def configure(prices: dict[str, dict[str, float]]) -> None:
    """Replace the configured prices (model -> input_per_million, output_per_million)."""
    _configured.clear()
    _configured.update({name: dict(price) for name, price in prices.items()})


def price_table() -> dict[str, dict[str, float]]:
    table = {name: dict(price) for name, price in DEFAULT_PRICES.items()}
    table.update({name: dict(price) for name, price in _configured.items()})
    path = os.environ.get("VALID_PRICES")
    if path:
        try:
            extra = json.loads(Path(path).read_text(encoding="utf-8"))
            for name, price in extra.items():
                table[name] = {
                    "input_per_million": float(price["input_per_million"]),
                    "output_per_million": float(price["output_per_million"]),
                }
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
            raise ConfigError(f"{path}: not a price table (VALID_PRICES): {err}") from None
    return table


def require_price(model: str | None) -> dict[str, float]:
    table = price_table()
    key = model or "offline"
    if key not in table:
        raise ConfigError(f"no price for model {key!r}: add it to valid.toml's [prices] or a JSON price table named by VALID_PRICES")
    return table[key]


def cost_usd(model: str | None, tokens_in: int, tokens_out: int) -> float:
    price = require_price(model)
    cost = tokens_in * price["input_per_million"] / 1e6 + tokens_out * price["output_per_million"] / 1e6
    return round(cost, 8)
