"""Which builds are one product's: versions by their names, editions by their content.

What one build lacks is told apart from what it words differently by the builds of the same product
(valid.answer.answerable): a word that titles another version's topic and that this version never
writes is a thing this version does not have, while another product's topics say nothing of it (the
CLI's "Location" section is no sign that the agent lacks a location). Names tell versions apart
("Corvane CLI 1.0.0" … "Corvane CLI 2.4.1": one product, by valid.answer.scope.naming_pattern), but
not editions: "Oxygen XML Editor", "Oxygen XML Author" and "Oxygen XML Developer" are three products
by their names and one product's editions by their content, which they share for the most part. So
two builds are also peers when most of the smaller one's content is in scope for the other too
(`share`, the overlap coefficient of their in-scope chunk sets). On the bundled samples this adds no
pair the names did not give (Corvane's CLI and agent share a quarter of their content); on the Oxygen
guide it joins the six desktop editions and the plugins built from their pages. Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# The least share of the smaller build's chunks also in scope for the other, for content peers.
# On the trap sets' doc sets, one product's versions or editions share 0.5 to 1.0, different
# products 0.0 to 0.4 (docs/answer.md, "Answerability").
PEER_SHARE = 0.5


def peers(
    profiles: Sequence[str],
    products: Mapping[str, frozenset[str]],
    shared: Mapping[str, Mapping[str, int]] | None = None,
    share: float = PEER_SHARE,
) -> dict[str, list[str]]:
    """Each profile's peers, itself included, in profile order: the same product by name
    (`products`: profile → its product words), or (`shared`: chunks in scope for both, a profile
    with itself its own count) at least `share` of the smaller one's chunks in common."""
    return {p: [q for q in profiles if products.get(q) == products.get(p) or _overlap(shared, p, q) >= share] for p in profiles}


def _overlap(shared: Mapping[str, Mapping[str, int]] | None, a: str, b: str) -> float:
    if not shared:
        return 0.0
    smaller = min(shared[a][a], shared[b][b])
    return shared[a][b] / smaller if smaller else 0.0
