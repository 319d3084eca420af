"""The one Jinja2 environment every HTML page VALID writes is rendered through.

Autoescaping is on for every template (a reader's question, a chunk's text, a title from the doc set
can all hold markup), and an undefined name is an error, not an empty string, so a template that asks
for a word the catalogue lacks fails in tests instead of printing a blank. Templates ship inside the
package (`valid/templates`, package data).
"""

from __future__ import annotations

import html
from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup


def _named_entities(value: object) -> object:
    """Escape a plain value with the named entities (`&quot;`, `&#x27;`) the pages used before
    templates; autoescaping would write `&#34;`, which is the same to a browser but not to readers of
    the saved pages or their tests. A value already marked safe (a macro's output) is left as it is."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value), quote=True))


@lru_cache(maxsize=1)
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("valid", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=_named_entities,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(name: str, **context: object) -> str:
    """The packaged template `name` rendered with `context`, every value escaped unless marked safe."""
    return environment().get_template(name).render(**context)


def render_text(template: str, **context: object) -> str:
    """A template given as text (the ask page ships as a static file), through the same environment."""
    return environment().from_string(template).render(**context)
