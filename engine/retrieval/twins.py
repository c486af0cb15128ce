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
_CALIBRATION_ROWS = 400  # passages sampled (deterministically) for the unrelated-pair statistics
_BLOCK_ROWS = 512  # rows per block of the nearest-neighbour search


def _pair_stats(body: np.ndarray) -> tuple[float, float]:
    """Mean and spread of the cosine between two different passages (all pairs of an evenly spaced sample, so a
    large corpus costs no n × n matrix at start-up; a corpus of at most 400 passages uses every pair)."""
    sample = body[:: max(1, len(body) // _CALIBRATION_ROWS)]
    sims = sample @ sample.T
    values = sims[~np.eye(len(sample), dtype=bool)]
    return float(values.mean()), max(float(values.std()), _MIN_SPREAD)


def translation_twins(passages: Sequence[Passage], vectors: CorpusVectors, min_z: float) -> dict[str, str]:
    """passage id -> the id of its twin in another language (both directions); empty for one-language corpora."""
    n = len(passages)
    languages = np.array([p.language for p in passages])
    if n < 3 or len(set(languages.tolist())) < 2 or vectors.body.shape[0] != n:
        return {}
    body = np.asarray(vectors.body, dtype=np.float64)
    mean, sd = _pair_stats(body)
    # Each passage's nearest neighbour across the language line, a block of rows at a time (bounded memory).
    nearest = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.float64)
    for language in sorted(set(languages.tolist())):
        rows, others = np.flatnonzero(languages == language), np.flatnonzero(languages != language)
        across = body[others]
        for start in range(0, len(rows), _BLOCK_ROWS):
            block = rows[start : start + _BLOCK_ROWS]
            sims = body[block] @ across.T
            k = np.argmax(sims, axis=1)
            nearest[block], best[block] = others[k], sims[np.arange(len(block)), k]
    return {
        passages[i].id: passages[int(nearest[i])].id
        for i in range(n)
        if nearest[nearest[i]] == i and (best[i] - mean) / sd >= min_z
    }
