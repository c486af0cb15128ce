"""Score fusion for hybrid retrieval.

Reciprocal rank fusion (Cormack et al., 2009): fused(d) = Σ_i w_i / (k + rank_i(d)). Chosen over a normalised
score sum because BM25 scores are unbounded and e5 cosines are compressed into a narrow band (≈0.75-0.9):
ranks are comparable across the two, raw scores are not. A retriever that does not score a document (BM25 = 0,
no shared term) contributes nothing for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt


def ranks(scores: npt.NDArray[np.float64], present: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """1-based rank of every document by descending score (ties by index); ``inf`` where not present."""
    order = sorted((i for i in range(len(scores)) if present[i]), key=lambda i: (-scores[i], i))
    out = np.full(len(scores), np.inf)
    for position, index in enumerate(order, start=1):
        out[index] = position
    return out


def reciprocal_rank_fusion(
    rank_lists: Sequence[npt.NDArray[np.float64]], weights: Sequence[float], k: int
) -> npt.NDArray[np.float64]:
    if len(rank_lists) != len(weights):
        raise ValueError("one weight per rank list")
    fused = np.zeros(len(rank_lists[0]) if rank_lists else 0)
    for rank_list, weight in zip(rank_lists, weights, strict=True):
        finite = np.isfinite(rank_list)
        fused[finite] += weight / (k + rank_list[finite])
    return fused
