"""Translation twins: the same section written in two languages of one corpus.

A bilingual company often publishes its FAQ twice. Both versions then retrieve well for a question, and the
answer model's candidates compete with each other for probability (decision.py) although they state the same
thing, so neither reaches the threshold. Twins are found once, when the answerer is built: passages of
different languages that are each other's nearest neighbour across the language line and whose body cosine
is an outlier against the corpus's own passage pairs (a z-score, ``grounding.twin_min_z``). The decision then
reads the probability that *this content* answers: a passage's own probability plus its twin's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.retrieval.index import CorpusVectors
from engine.retrieval.models import Passage

_MIN_SPREAD = 0.01


def translation_twins(passages: Sequence[Passage], vectors: CorpusVectors, min_z: float) -> dict[str, str]:
    """passage id -> the id of its twin in another language (both directions); empty for one-language corpora."""
    n = len(passages)
    languages = np.array([p.language for p in passages])
    if n < 3 or len(set(languages.tolist())) < 2 or vectors.body.shape[0] != n:
        return {}
    sims = np.asarray(vectors.body @ vectors.body.T, dtype=np.float64)
    off_diagonal = ~np.eye(n, dtype=bool)
    mean, sd = float(sims[off_diagonal].mean()), max(float(sims[off_diagonal].std()), _MIN_SPREAD)

    def nearest_across(i: int) -> int:
        others = np.flatnonzero(languages != languages[i])
        return int(others[np.argmax(sims[i, others])])

    twins: dict[str, str] = {}
    for i in range(n):
        j = nearest_across(i)
        if nearest_across(j) == i and (sims[i, j] - mean) / sd >= min_z:
            twins[passages[i].id] = passages[j].id
    return twins
