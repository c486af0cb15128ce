"""The answer decision: a small logistic model over corpus-normalised support features, coefficients as rule data.

Hand-set thresholds fitted one company at a time did not carry over to the next company. Instead every
retrieved passage is described by a handful of features that mean the same in any corpus (similarities as
z-scores against the corpus's own calibration, standings against the corpus for this very question, shares of
the asked words the passage states); a linear score per passage, compared across the question's candidates and
a "none of them" option (a conditional logit), gives the probability that the passage answers the question.
The coefficients, the feature scaling and the decision threshold live in ``grounding.decision`` of
rules/retrieval.json; ``benchmarks/fit_answerability.py`` fits them on the labelled company sets (and reports
leave-one-company-out estimates). Precise vetoes (an unknown name, a kind or an amount the passage cannot state,
an asked word outweighing every stated one that a few other sections state) stay rules: they name what is missing
in the near-miss message.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from engine.retrieval.errors import RetrievalRulesError

# The features the model may use, in the order ``features()`` reports them (the rule file names its subset).
FEATURES: tuple[str, ...] = (
    "semantic_z",  # max(body, title) cosine as a z-score against unrelated sections of this corpus
    "body_z",  # the body's cosine alone, as that z-score
    "title_z",  # the section title's cosine (the title embedded as a question) as a z-score; untitled: body_z
    "standing",  # max(body, title) z among this corpus's passages for this question
    "gap",  # standing minus the best standing of the other retrieved passages that can state the asked kind
    "coverage",  # IDF-weighted share of the asked words stated here (across languages: also translations)
    "verbatim",  # ... stated here in the question's own words (stem, typo or concept group)
    "cross",  # the passage is in another language than the question
    "leads",  # no better-ranked passage could state the asked kind
    "reciprocal_rank",  # 1 / fused retrieval rank
    "only_here",  # an asked noun is stated in this passage and no other of its language
    "translated",  # an asked word is stated here only through the embedding's cross-lingual word match
    "elsewhere",  # weight share of asked words stated only in a few other passages (the asked thing is there)
    "title_coverage",  # weight share of the asked words the section's own heading states
    "lexical",  # keyword (BM25) score relative to the best retrieved passage's
    "kind_stated",  # the question asks a kind (price, clock time, date) and the passage states one
    "unknown",  # weight share of checkable asked words the corpus never states (a paraphrase, or not covered)
)
_CLIP = 8.0  # z-scores beyond this carry no more evidence (and must not swamp the other features)


def clip(value: float) -> float:
    return max(-_CLIP, min(_CLIP, value))


class AnswerModel:
    """Each candidate passage scores ``bias + Σ weight · (feature - mean) / scale``; the scores of one question's
    candidates and a "none of them" option scoring 0 are turned into probabilities (``probabilities``); the most
    probable passage answers when its probability is at least ``threshold``."""

    def __init__(
        self,
        features: Sequence[str],
        weights: Sequence[float],
        mean: Sequence[float],
        scale: Sequence[float],
        bias: float,
        threshold: float,
    ) -> None:
        unknown = sorted(set(features) - set(FEATURES))
        if unknown:
            raise RetrievalRulesError(
                f"grounding.decision names unknown feature(s): {', '.join(unknown)}", code="retrieval.rules.decision"
            )
        if not (len(features) == len(weights) == len(mean) == len(scale)):
            raise RetrievalRulesError(
                "grounding.decision: features, weights, mean and scale differ in length",
                code="retrieval.rules.decision",
            )
        if any(s <= 0 for s in scale):
            raise RetrievalRulesError("grounding.decision: every scale must be > 0", code="retrieval.rules.decision")
        self.features = tuple(features)
        self.weights = tuple(weights)
        self.mean = tuple(mean)
        self.scale = tuple(scale)
        self.bias = bias
        self.threshold = threshold

    def logit(self, values: Mapping[str, float]) -> float:
        return self.bias + sum(
            w * (values[f] - m) / s
            for f, w, m, s in zip(self.features, self.weights, self.mean, self.scale, strict=True)
        )

    def probabilities(self, logits: Sequence[float]) -> list[float]:
        """The chance that each candidate passage is the answer, against each other and against "none of them"
        (a conditional logit whose null option scores 0): a passage that merely beats unrelated sections loses
        probability to an equally good rival, and the question is left unanswered when none stands out."""
        if not logits:
            return []
        top = max(0.0, *logits)
        weights = [math.exp(z - top) for z in logits]
        total = math.exp(-top) + sum(weights)
        return [w / total for w in weights]
