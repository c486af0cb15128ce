"""Per-corpus calibration of dense similarities, computed once when the index is built.

e5 cosines sit in a narrow band whose position depends on the corpus (its language, its style, how alike its
sections are), so a fixed threshold fitted on one company fails on the next. Instead every corpus measures how
similar *unrelated* material looks: each section title, embedded as a question, against every other section's
body and title. A visitor question's similarity to a passage is then read as a z-score against that
distribution: how far above "a question about some other section" it lies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.retrieval.index import CorpusVectors

_MIN_SPREAD = 0.01  # a corpus of near-identical sections must not turn noise into huge z-scores


@dataclass(frozen=True)
class Calibration:
    body_mean: float
    body_sd: float
    title_mean: float
    title_sd: float

    def body_z(self, cosine: float) -> float:
        return (cosine - self.body_mean) / self.body_sd

    def title_z(self, cosine: float) -> float:
        return (cosine - self.title_mean) / self.title_sd


def _stats(matrix: np.ndarray, mask: np.ndarray) -> tuple[float, float]:
    values = matrix[mask]
    if values.size == 0:
        return 0.8, 0.05
    return float(values.mean()), max(float(values.std()), _MIN_SPREAD)


def calibrate(vectors: CorpusVectors) -> Calibration:
    """Negative-pair statistics: title_i (as a question) vs body_j and title_j for every i ≠ j with a title."""
    titled = vectors.has_title
    n = len(titled)
    off_diagonal = ~np.eye(n, dtype=bool)
    rows = titled[:, None] & off_diagonal
    body = vectors.titles @ vectors.body.T
    titles = vectors.titles @ vectors.titles.T
    body_mean, body_sd = _stats(body, rows)
    title_mean, title_sd = _stats(titles, rows & titled[None, :])
    return Calibration(body_mean, body_sd, title_mean, title_sd)
