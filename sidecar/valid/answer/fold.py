"""One answer when the builds agree: answers of several generations that are the same text from the
same sources are shown once, naming all of them ("For Windows, macOS and Linux: ...").

Only an exact agreement folds: the same answer sentence and the same steps, each citing the same
chunk. A chunk id names one text (a variant of different text has its own id), so the same cite
means the reader of each generation is sent to the same words. Anything less (the same words from
two sources, or one step more) stays one answer per generation. Pure functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from valid.answer.models import GenerationAnswer


def same_answer(a: GenerationAnswer, b: GenerationAnswer) -> bool:
    """The same answer sentence and the same steps, from the same chunks (spacing aside)."""
    if _spaced(a.answer) != _spaced(b.answer) or len(a.steps) != len(b.steps):
        return False
    return all(x.cite == y.cite and _spaced(x.text) == _spaced(y.text) for x, y in zip(a.steps, b.steps))


def fold_answers(answers: Sequence[GenerationAnswer]) -> list[GenerationAnswer]:
    """The answers with every group of agreeing ones folded into the first of the group, which then
    carries all their generations (in the order given); the groups keep the order of their first."""
    folded: list[GenerationAnswer] = []
    for item in answers:
        for i, group in enumerate(folded):
            if same_answer(group, item):
                more = [g for g in item.generations if g not in group.generations]
                folded[i] = group.model_copy(update={"generations": [*group.generations, *more]})
                break
        else:
            folded.append(item.model_copy(update={"generations": list(item.generations)}))
    return folded


def _spaced(text: str) -> str:
    return " ".join(text.split())
